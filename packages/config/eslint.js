// @ts-check
// The one ESLint setup of the monorepo. Each workspace's eslint.config.mjs calls gnapEslint with its own name, so
// the boundary rules know which package a file belongs to:
//   - no import reaches into another package's src (through @gnap/x/src/... or a relative path that climbs there);
//   - the domain package stays free of next, react and @trpc; the api package of next;
//   - only packages/domain/src/kernel/db/** and *.repo.ts files import the generated Prisma client;
//   - inside packages/domain/src, protocol/ never imports operator/, and kernel/ imports neither (tests excepted:
//     they arrange state through either side);
//   - in apps/web/src only env.ts reads process.env.
// TypeScript files are linted with type information (typescript-eslint's project service: each file is checked in
// the tsconfig.json nearest to it), JavaScript files without.
import { fileURLToPath } from 'node:url'
import nextPlugin from '@next/eslint-plugin-next'
import reactHooks from 'eslint-plugin-react-hooks'
import tseslint from 'typescript-eslint'

/** @typedef {import('eslint').Linter.Config} Config */
/** @typedef {import('eslint').Linter.RulesRecord} Rules */
/** @typedef {'root' | 'config' | 'domain' | 'api' | 'web' | 'launcher' | 'test-support' | 'bench' | 'examples'} Workspace */
/** @typedef {{ regex: string, message: string }} Restriction */

const TS_FILES = ['**/*.ts', '**/*.tsx', '**/*.mts', '**/*.cts']
const JS_FILES = ['**/*.js', '**/*.mjs', '**/*.cjs', '**/*.jsx']

/** Generated or installed output: never linted. */
const IGNORES = [
  '**/node_modules/**',
  '**/.next/**',
  '**/.turbo/**',
  '**/dist/**',
  '**/coverage/**',
  '**/test-results/**',
  '**/playwright-report/**',
  '**/db/generated/**',
  '**/db/generated-pg/**',
  '**/next-env.d.ts',
  '**/bench/results/**',
  '.runtime/**',
]

/** @type {Restriction[]} */
const DEEP_IMPORTS = [
  {
    regex: '^@gnap/[^/]+/src(?:/|$)',
    message: 'Import the package through its entry points (its package.json exports), not from its src folder.',
  },
  {
    // Climbs out with '../', then down into some <folder>/src (packages/<name>/src, apps/<name>/src, ../<name>/src).
    regex: '^(?:\\.\\./)+(?:(?:packages|apps)/)?[^./][^/]*/src(?:/|$)',
    message: "Do not reach into another package's src through a relative path: import it as @gnap/<name>.",
  },
]

/** @type {Restriction} */
const GENERATED_CLIENT = {
  regex: '(?:^|/)db/generated(?:-pg)?(?:/|$)|(?:^|/)generated(?:-pg)?/client(?:/|$)',
  message: 'Only packages/domain/src/kernel/db/** and *.repo.ts files use the generated Prisma client; go through a repository.',
}

/**
 * The direction inside packages/domain/src (docs/architecture.md): the protocol stands on the kernel only, the
 * operator side on both, the kernel on neither. A folder's files (tests excepted) may not import the folders named.
 * @type {{ folder: string, forbidden: string[], message: string }[]}
 */
const DOMAIN_DIRECTIONS = [
  {
    folder: 'protocol',
    forbidden: ['operator'],
    message: 'protocol/ never imports operator/: move what both need into protocol/ or kernel/, or split the file.',
  },
  {
    folder: 'kernel',
    forbidden: ['protocol', 'operator'],
    message: 'kernel/ imports neither protocol/ nor operator/: it is what both stand on.',
  },
]

/**
 * The import of another top folder of packages/domain/src, by a relative path or the package's own entry point.
 * @param {string} folder
 * @returns {string}
 */
const folderImport = (folder) => `^(?:\\.{1,2}/(?:.*/)?${folder}(?:/|$)|@gnap/domain/${folder}(?:/|$))`

/** @type {Partial<Record<Workspace, Restriction[]>>} */
const FRAMEWORKS = {
  domain: [
    {
      regex: '^(?:next|react|react-dom)(?:/|$)',
      message: 'The domain package knows no web framework: keep next and react in apps/web.',
    },
    { regex: '^@trpc/', message: 'The domain package knows no transport: tRPC belongs in packages/api.' },
  ],
  api: [{ regex: '^next(?:/|$)', message: 'The api package does not depend on Next.js: keep next in apps/web.' }],
}

const ENV_MESSAGE = 'In apps/web/src only env.ts reads process.env: take settings from readEnv() / readConfig().'

/**
 * The import and syntax restrictions of one group of files. no-restricted-imports and no-restricted-syntax take one
 * option list each (a later config replaces it, never merges), so every group gets its complete list.
 * @param {Restriction[]} restrictions
 * @param {boolean} restrictEnv
 * @returns {Rules}
 */
function restrictionRules(restrictions, restrictEnv) {
  const patterns = restrictions.map(({ regex, message }) => ({ regex, message }))
  const paths = restrictEnv ? ['process', 'node:process'].map((name) => ({ name, importNames: ['env'], message: ENV_MESSAGE })) : []
  // import('...') is not seen by no-restricted-imports. esquery regexes cannot hold a '/', hence \u002F.
  const syntax = restrictions.map(({ regex, message }) => ({
    selector: `ImportExpression[source.value=/${regex.replaceAll('/', '\\u002F')}/]`,
    message,
  }))
  if (restrictEnv) {
    // process.env.NEXT_RUNTIME is no setting: Next replaces it at build time (instrumentation.ts picks its runtime).
    const env = "[object.type='Identifier'][object.name='process']"
    syntax.push(
      {
        selector: `MemberExpression${env}[property.name='env']:not(MemberExpression[property.name='NEXT_RUNTIME'] > MemberExpression)`,
        message: ENV_MESSAGE,
      },
      { selector: `MemberExpression${env}[computed=true][property.value='env']`, message: ENV_MESSAGE },
      {
        selector: "VariableDeclarator[init.type='Identifier'][init.name='process'] > ObjectPattern > Property[key.name='env']",
        message: ENV_MESSAGE,
      },
    )
  }
  return {
    'no-restricted-imports': ['error', { paths, patterns }],
    'no-restricted-syntax': syntax.length === 0 ? 'off' : ['error', ...syntax],
  }
}

/**
 * @param {Workspace} workspace
 * @returns {Config[]}
 */
function boundaries(workspace) {
  const base = [...DEEP_IMPORTS, ...(FRAMEWORKS[workspace] ?? [])]
  const generatedAllowed = workspace === 'domain' ? ['src/kernel/db/**', '**/*.repo.ts'] : ['**/*.repo.ts']
  /** @type {Config[]} */
  const configs = [
    { name: 'gnap/boundaries', files: [...TS_FILES, ...JS_FILES], rules: restrictionRules([...base, GENERATED_CLIENT], false) },
    { name: 'gnap/boundaries/prisma-client', files: generatedAllowed, rules: restrictionRules(base, false) },
  ]
  if (workspace === 'domain') {
    for (const { folder, forbidden, message } of DOMAIN_DIRECTIONS) {
      const direction = forbidden.map((f) => ({ regex: folderImport(f), message }))
      const files = `src/${folder}/**`
      const ignores = ['**/*.test.ts']
      // The folder's share of generatedAllowed: its repositories (and kernel/db/**).
      const repos = generatedAllowed
        .map((g) => (g.startsWith('src/') ? g : `${files}/${g.replace('**/', '')}`))
        .filter((g) => g.startsWith(`src/${folder}/`))
      configs.push(
        { name: `gnap/boundaries/${folder}`, files: [files], ignores, rules: restrictionRules([...base, ...direction, GENERATED_CLIENT], false) },
        {
          name: `gnap/boundaries/${folder}/prisma-client`,
          files: repos,
          ignores,
          rules: restrictionRules([...base, ...direction], false),
        },
      )
    }
  }
  if (workspace === 'web') {
    const ignores = ['src/env.ts']
    configs.push(
      { name: 'gnap/boundaries/web-env', files: ['src/**'], ignores, rules: restrictionRules([...base, GENERATED_CLIENT], true) },
      { name: 'gnap/boundaries/web-env/prisma-client', files: ['src/**/*.repo.ts'], ignores, rules: restrictionRules(base, true) },
    )
  }
  return configs
}

/**
 * The flat config of one workspace.
 * @param {{ workspace: Workspace, url: string, defaultProject?: { files: string[], tsconfig: string } }} options
 *   url: the calling config's import.meta.url (the folder typed linting resolves tsconfig files from);
 *   defaultProject: TypeScript files outside every tsconfig.json (no '**' globs), linted with the compiler options of
 *   the named tsconfig (relative to that folder).
 * @returns {Config[]}
 */
export function gnapEslint({ workspace, url, defaultProject }) {
  const tsconfigRootDir = fileURLToPath(new URL('.', url))
  /** @type {Config[]} */
  const configs = [
    { name: 'gnap/ignores', ignores: workspace === 'root' ? [...IGNORES, 'apps/**', 'packages/**', 'tooling/**', 'examples/**'] : IGNORES },
    {
      name: 'gnap/typescript',
      files: TS_FILES,
      languageOptions: {
        parser: /** @type {import('eslint').Linter.Parser} */ (tseslint.parser),
        parserOptions: {
          projectService:
            defaultProject === undefined ? true : { allowDefaultProject: defaultProject.files, defaultProject: defaultProject.tsconfig },
          tsconfigRootDir,
        },
      },
      plugins: { '@typescript-eslint': /** @type {import('eslint').ESLint.Plugin} */ (tseslint.plugin) },
      rules: {
        // A type-only import says so, in the code's `import { x, type Y }` style: it never loads a module at run time.
        '@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports', fixStyle: 'inline-type-imports' }],
        '@typescript-eslint/no-floating-promises': 'error',
        // Also in JSX attributes: the console's handlers already mark a promise they drop with `void`.
        '@typescript-eslint/no-misused-promises': 'error',
      },
    },
    ...boundaries(workspace),
  ]
  if (workspace === 'web') {
    configs.push(
      { ...reactHooks.configs.flat.recommended, name: 'gnap/react-hooks', files: ['**/*.tsx', 'src/**/*.ts'] },
      { ...nextPlugin.configs.recommended, name: 'gnap/next', files: ['src/**'] },
    )
  }
  return configs
}
