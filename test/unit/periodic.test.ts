import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PeriodicJob, PeriodicJobs } from '../../src/domain/shared/periodic.ts';

const silent = { error() {} };

/** A pass the test ends by hand; `started` counts the passes begun. */
function gatedJob(options: { everyMs?: number; atStart?: boolean; stopped?: () => Promise<void> } = {}) {
  const gates: (() => void)[] = [];
  const signals: AbortSignal[] = [];
  const job = new PeriodicJob(
    {
      name: 'test',
      everyMs: options.everyMs ?? 0,
      ...(options.atStart === undefined ? {} : { atStart: options.atStart }),
      ...(options.stopped ? { stopped: options.stopped } : {}),
      pass: (signal) => {
        signals.push(signal);
        return new Promise<number>((resolve) => gates.push(() => resolve(gates.length)));
      },
    },
    silent,
  );
  const passBegun = async (n: number) => {
    while (gates.length < n) await new Promise((resolve) => setImmediate(resolve));
  };
  return { job, gates, signals, passBegun };
}

describe('periodic jobs', () => {
  it('runs a pass at start, never two at once, and one more when woken during a pass', async () => {
    const { job, gates, passBegun } = gatedJob();
    job.start();
    await passBegun(1);
    job.wake();
    job.wake();
    assert.equal(gates.length, 1, 'no second pass while one runs');
    gates[0]!();
    await passBegun(2);
    gates[1]!();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(gates.length, 2, 'two wakes during a pass make one pass after it');
    await job.stop();
  });

  it('answers a ticked pass its result, started or not, and waits for the pass under way first', async () => {
    const { job, gates, passBegun } = gatedJob();
    const first = job.tick();
    await passBegun(1);
    const second = job.tick();
    gates[0]!();
    assert.equal(await first, 1);
    await passBegun(2);
    gates[1]!();
    assert.equal(await second, 2);
  });

  it('does not run at start when asked not to, nor when woken before it starts', async () => {
    const { job, gates } = gatedJob({ everyMs: 3_600_000, atStart: false });
    job.wake();
    job.start();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(gates.length, 0);
    await job.stop();
  });

  it("stops together: aborts the passes' signal, waits for the pass under way, then the job's own stop", async () => {
    const order: string[] = [];
    const a = gatedJob({ stopped: async () => void order.push('a stopped') });
    const b = gatedJob();
    const jobs = new PeriodicJobs();
    jobs.add(a.job);
    jobs.add(b.job);
    jobs.start();
    await a.passBegun(1);
    await b.passBegun(1);
    const stopping = jobs.stop().then(() => order.push('all stopped'));
    assert.equal(a.signals[0]?.aborted, true);
    assert.equal(a.job.stopping, true);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(order, [], 'waits for the passes under way');
    a.gates[0]!();
    b.gates[0]!();
    await stopping;
    assert.deepEqual(order, ['a stopped', 'all stopped']);
    a.job.wake();
    assert.equal(a.gates.length, 1, 'a stopped job stays stopped');
  });

  it('starts a job added after the start at once', async () => {
    const jobs = new PeriodicJobs();
    jobs.start();
    const { job, passBegun, gates } = gatedJob();
    jobs.add(job);
    await passBegun(1);
    gates[0]!();
    await jobs.stop();
  });
});
