import { gnapEslint } from './eslint.js'

export default gnapEslint({ workspace: 'config', url: import.meta.url })
