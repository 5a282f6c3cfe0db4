import { gnapEslint } from '@gnap/config/eslint'

export default gnapEslint({ workspace: 'test-support', url: import.meta.url })
