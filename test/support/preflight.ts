/**
 * Before the suite: say plainly which real service is missing, rather than letting dozens of tests
 * fail with ECONNREFUSED. The suite needs PostgreSQL and Redis; nothing is skipped without them.
 */
import { POSTGRES_URL, REDIS_URL } from './harness.ts';
import { reachable } from './reachable.ts';

const missing: string[] = [];
const pgProblem = await reachable(POSTGRES_URL, 5432);
if (pgProblem) missing.push(`PostgreSQL at ${POSTGRES_URL} (${pgProblem}); set TEST_POSTGRES_URL or start it`);
const redisProblem = await reachable(REDIS_URL, 6379);
if (redisProblem) missing.push(`Redis at ${REDIS_URL} (${redisProblem}); set TEST_REDIS_URL or start it`);
if (missing.length) {
  console.error('The test suite needs real services that are not reachable:');
  for (const m of missing) console.error(`  - ${m}`);
  process.exit(1);
}
console.log(`preflight: PostgreSQL ${POSTGRES_URL} and Redis ${REDIS_URL} reachable`);
