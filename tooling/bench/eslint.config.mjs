import { gnapEslint } from '@gnap/config/eslint'

export default gnapEslint({ workspace: 'bench', url: import.meta.url })
