import { gnapEslint } from '@gnap/config/eslint'

export default gnapEslint({ workspace: 'launcher', url: import.meta.url })
