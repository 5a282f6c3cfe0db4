import { gnapEslint } from '@gnap/config/eslint'

export default gnapEslint({ workspace: 'api', url: import.meta.url })
