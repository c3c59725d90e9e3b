/**
 * Before the suite: say plainly which real service is missing, rather than letting dozens of tests
 * fail with ECONNREFUSED. The suite needs PostgreSQL and Redis; nothing is skipped without them.
 * Quick mode (TEST_QUICK=1, `npm run test:quick`) uses neither, so it checks neither.
 */
import { POSTGRES_URL, QUICK, REDIS_URL } from './harness.ts';
import { reachable } from './reachable.ts';

if (QUICK) {
  console.log('preflight: quick mode (TEST_QUICK=1): SQLite only; suites that need PostgreSQL or Redis are skipped');
  process.exit(0);
}
const missing: string[] = [];
const pgProblem = await reachable(POSTGRES_URL, 5432);
if (pgProblem) missing.push(`PostgreSQL at ${POSTGRES_URL} (${pgProblem}); set TEST_POSTGRES_URL or start it`);
const redisProblem = await reachable(REDIS_URL, 6379);
if (redisProblem) missing.push(`Redis at ${REDIS_URL} (${redisProblem}); set TEST_REDIS_URL or start it`);
if (missing.length) {
  console.error('The test suite needs real services that are not reachable:');
  for (const m of missing) console.error(`  - ${m}`);
  console.error('For the inner loop without them: npm run test:quick (SQLite only).');
  process.exit(1);
}
console.log(`preflight: PostgreSQL ${POSTGRES_URL} and Redis ${REDIS_URL} reachable`);
