import { gnapEslint } from '@gnap/config/eslint'

// The root's own files (scripts/, prisma/, prisma.config.ts); every workspace package lints itself. prisma.config.ts
// is in no tsconfig.json (a root one would change how tsx compiles the scripts run from here): it gets the settings of
// prisma/tsconfig.json.
export default gnapEslint({
  workspace: 'root',
  url: import.meta.url,
  defaultProject: { files: ['prisma.config.ts'], tsconfig: 'prisma/tsconfig.json' },
})
