/**
 * A 25 MB file saved to and read from each store holds this process's buffer memory (what
 * `process.memoryUsage().arrayBuffers` counts: live chunks and dead ones not yet collected) to a few
 * megabytes, not the file's size. The source allocates a fresh buffer per chunk, as socket reads do.
 * The server's whole resident set through HTTP is measured by bench/attachments.ts.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, STORES, type TestApp } from '../support/harness.ts';

const MB = 1024 * 1024;
const FILE_BYTES = 25 * MB;
const CHUNK_BYTES = 64 * 1024;
/** The bound on the growth of an upload's or a download's memory. */
const BOUND_BYTES = 10 * MB;

/** The peak of the process's buffer memory, sampled as each chunk passes. */
class BufferPeak {
  readonly start = process.memoryUsage().arrayBuffers;
  peak = this.start;
  sample(): void {
    this.peak = Math.max(this.peak, process.memoryUsage().arrayBuffers);
  }
  get growth(): number {
    return this.peak - this.start;
  }
}

/** `bytes` of a file in fresh chunks, sampling `peak` at each. */
function freshChunks(bytes: number, peak?: BufferPeak): Readable {
  return Readable.from(
    (function* () {
      for (let sent = 0; sent < bytes; sent += CHUNK_BYTES) {
        peak?.sample();
        yield Buffer.alloc(Math.min(CHUNK_BYTES, bytes - sent), sent % 251);
      }
    })(),
    { objectMode: false },
  );
}

for (const store of STORES) {
  describe(`a 25 MB attachment through the store holds a bounded memory [sqlite, ${store}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp('sqlite', { store });
      // first use (a bucket's pooled part buffer, compiled code) is not what one more upload costs
      const warm = await t.services.files.save(t.tenant.companyId, freshChunks(6 * MB));
      for await (const _chunk of await t.services.files.open(warm.key));
    });
    after(() => t.dispose());

    it(`saves and reads it back with at most ${BOUND_BYTES / MB} MB more buffer memory, every byte intact`, async () => {
      const whole = createHash('sha256');
      for await (const chunk of freshChunks(FILE_BYTES)) whole.update(chunk as Buffer);
      const expected = whole.digest('hex');
      const saving = new BufferPeak();
      const saved = await t.services.files.save(t.tenant.companyId, freshChunks(FILE_BYTES, saving));
      saving.sample();
      assert.equal(saved.size, FILE_BYTES);
      assert.equal(saved.sha256, expected);
      assert.ok(saving.growth <= BOUND_BYTES, `saving grew buffer memory by ${(saving.growth / MB).toFixed(1)} MB`);

      const reading = new BufferPeak();
      const hash = createHash('sha256');
      for await (const chunk of await t.services.files.open(saved.key)) {
        hash.update(chunk as Buffer);
        reading.sample();
      }
      assert.equal(hash.digest('hex'), expected);
      assert.ok(reading.growth <= BOUND_BYTES, `reading grew buffer memory by ${(reading.growth / MB).toFixed(1)} MB`);
    });
  });
}
