import { gnapEslint } from '@gnap/config/eslint'

export default gnapEslint({ workspace: 'web', url: import.meta.url })
