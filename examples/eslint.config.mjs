import { gnapEslint } from '@gnap/config/eslint'

export default gnapEslint({ workspace: 'examples', url: import.meta.url })
