import { gnapEslint } from '@gnap/config/eslint'

export default gnapEslint({ workspace: 'domain', url: import.meta.url })
