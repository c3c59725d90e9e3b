import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('mail configuration', () => {
  it('reads SMTP_URL with its credentials, and the defaults of the other mail settings', () => {
    assert.deepEqual(loadConfig({}).people.mail, { smtpUrl: undefined, from: 'Taskboard <taskboard@localhost>', timeoutMs: 10_000, pollMs: 5_000 });
    assert.equal(
      loadConfig({ SMTP_URL: 'smtps://robot:hunter2-secret@mail.acme.test:465' }).people.mail.smtpUrl,
      'smtps://robot:hunter2-secret@mail.acme.test:465',
    );
  });

  it('refuses a malformed SMTP_URL without repeating it: it may hold a password', () => {
    for (const raw of ['smtp//robot:hunter2-secret@mail.acme.test', 'https://robot:hunter2-secret@mail.acme.test']) {
      assert.throws(
        () => loadConfig({ SMTP_URL: raw }),
        (error: unknown) =>
          error instanceof ConfigError && /^SMTP_URL must be a URL like smtp:\/\/host:587$/.test(error.message) && !error.message.includes('hunter2'),
      );
    }
  });

  it('still repeats a malformed URL that holds no secret', () => {
    assert.throws(
      () => loadConfig({ PUBLIC_URL: 'ftp://tasks.acme.test' }),
      /PUBLIC_URL must be a URL like https:\/\/tasks.example.com, got "ftp:\/\/tasks.acme.test"/,
    );
  });
});
