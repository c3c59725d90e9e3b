/**
 * The dependency rules (.dependency-cruiser.cjs, which npm test runs over the code) catch what they
 * are for: a small tree with one breach of each is cruised with the same rules and options.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cruise, type IConfiguration, type ICruiseResult } from 'dependency-cruiser';
import { ROOT } from '../support/domain-sources.ts';

const config = createRequire(import.meta.url)(join(ROOT, '.dependency-cruiser.cjs')) as IConfiguration;

/** One breach per rule, and files that break none. */
const TREE: Record<string, string> = {
  'src/storage/dialect.ts': 'export const dialect = 1;\n',
  'src/storage/database.ts': 'export type Executor = unknown;\n',
  // a cycle of types is a cycle
  'src/storage/a.ts': "import type { B } from './b.ts';\nexport type A = B | 1;\n",
  'src/storage/b.ts': "import type { A } from './a.ts';\nexport type B = A | 2;\n",
  'src/storage/upwards.ts': "import { service } from '../domain/cards/service.ts';\nexport const up = service;\n",
  'src/domain/cards/service.ts':
    "import type { Executor } from '../../storage/database.ts';\nimport { dialect } from '../../storage/dialect.ts';\nimport 'pg';\nexport const service = (db: Executor) => [db, dialect];\n",
  'src/domain/cards/fine.ts': "import type { Executor } from '../../storage/database.ts';\nexport const fine = (db: Executor) => db;\n",
  'src/routes/cards.ts': "import { dialect } from '../storage/dialect.ts';\nexport const route = dialect;\n",
  'web/src/page.ts': "import { fine } from '../../src/domain/cards/fine.ts';\nexport const page = fine;\n",
};

describe('the dependency rules', () => {
  let base: string;
  let result: ICruiseResult;

  before(async () => {
    base = await mkdtemp(join(tmpdir(), 'taskboard-rules-'));
    for (const [path, text] of Object.entries(TREE)) {
      await mkdir(dirname(join(base, path)), { recursive: true });
      await writeFile(join(base, path), text);
    }
    await symlink(join(ROOT, 'node_modules'), join(base, 'node_modules'));
    await writeFile(join(base, 'package.json'), JSON.stringify({ type: 'module', dependencies: { pg: '*' } }));
    const { tsConfig: _tsConfig, ...options } = config.options ?? {};
    const cruised = await cruise(['src', 'web/src'], { ...options, validate: true, baseDir: base, ruleSet: { forbidden: config.forbidden ?? [] } } as never);
    result = cruised.output as ICruiseResult;
  });
  after(() => rm(base, { recursive: true, force: true }));

  /** `rule: from → to` for each breach (a package named from node_modules, wherever that is). */
  const breaches = () => result.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to.replace(/^.*\/node_modules\//, 'node_modules/')}`).sort();

  it('name each breach, and nothing else', () => {
    assert.deepEqual(breaches(), [
      'domain-no-dialect: src/domain/cards/service.ts → src/storage/dialect.ts',
      'domain-no-drivers: src/domain/cards/service.ts → node_modules/pg/esm/index.mjs',
      'no-circular: src/storage/a.ts → src/storage/b.ts',
      'routes-through-domain: src/routes/cards.ts → src/storage/dialect.ts',
      'storage-not-upwards: src/storage/upwards.ts → src/domain/cards/service.ts',
      'web-not-the-server: web/src/page.ts → src/domain/cards/fine.ts',
    ]);
  });
});
