/**
 * A real OpenID Connect provider for the single sign-on tests (the `oidc-provider` package), on
 * 127.0.0.1 and a port of its own, with one confidential client that must use PKCE, and people the
 * test names. `signInAt` plays the browser at the provider: it follows the redirects, fills the
 * development login form with an account id, and stops at the redirect back to the app.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type Configuration } from 'oidc-provider';

export interface ProviderAccount {
  email?: string;
  email_verified?: boolean;
  name?: string;
  /** The `groups` claim, sent for the `groups` scope. */
  groups?: string[];
}

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Who may sign in at the provider, by account id (the `sub`). */
  accounts: Map<string, ProviderAccount>;
  close(): Promise<void>;
}

export async function startProvider(redirectUrl: string): Promise<TestProvider> {
  const accounts = new Map<string, ProviderAccount>();
  let provider: Provider | undefined;
  const server: Server = createServer((req, res) => {
    if (!provider) {
      res.statusCode = 503;
      res.end();
      return;
    }
    provider.callback()(req, res);
  });
  // the app's fetches keep connections alive between tests: a server closing them after Node's 5 s
  // while a loaded machine's client still reuses them would fail a request at random
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'taskboard';
  const clientSecret = 'a test client secret that is long enough';
  const configuration: Configuration = {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUrl],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    pkce: { required: () => true },
    cookies: { keys: ['test cookie key'] },
    ttl: { AuthorizationCode: 60, Interaction: 600, Session: 600, Grant: 600, AccessToken: 600, IdToken: 600 },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
    async findAccount(_ctx, sub) {
      const account = accounts.get(sub);
      if (!account) return undefined;
      return { accountId: sub, claims: () => ({ sub, ...account }) };
    },
    // first-party: no consent screen (the login form is the interaction the tests fill)
    async loadExistingGrant(ctx) {
      const session = ctx.oidc.session;
      const client = ctx.oidc.client;
      if (!session?.accountId || !client) return undefined;
      const existing = session.grantIdFor(client.clientId);
      if (existing) return ctx.oidc.provider.Grant.find(existing);
      const grant = new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId: session.accountId });
      grant.addOIDCScope('openid email profile groups');
      await grant.save();
      return grant;
    },
  };
  provider = new Provider(issuer, configuration);
  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Cookies of one host, as a browser keeps them between redirects. */
class CookieJar {
  readonly #cookies = new Map<string, string>();
  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at).trim();
      const value = pair!.slice(at + 1).trim();
      if (value === '' || /max-age=0|expires=Thu, 01 Jan 1970/i.test(line)) this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

/**
 * From the provider's authorization URL to the redirect back to the app, signed in as `accountId`:
 * answers that redirect's URL (the app's callback with `code` and `state`, or an `error`).
 * `abort`: the person cancels at the login form instead.
 */
export async function signInAt(authorizationUrl: string, accountId: string, options: { abort?: boolean } = {}): Promise<URL> {
  const jar = new CookieJar();
  const origin = new URL(authorizationUrl).origin;
  let next = new URL(authorizationUrl);
  let form: URLSearchParams | undefined;
  for (let step = 0; step < 10; step++) {
    if (next.origin !== origin) return next;
    const response = await fetch(next, {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: { cookie: jar.header(), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(form ? { body: form.toString() } : {}),
      signal: AbortSignal.timeout(10_000),
    });
    jar.take(response);
    form = undefined;
    const location = response.headers.get('location');
    if (location) {
      await response.body?.cancel();
      next = new URL(location, next);
      continue;
    }
    const page = await response.text();
    const prompt = /name="prompt" value="(\w+)"/.exec(page)?.[1];
    if (response.status !== 200 || !prompt) throw new Error(`the provider answered ${response.status} at ${next.pathname}: ${page.slice(0, 300)}`);
    if (options.abort) {
      next = new URL(`${next.pathname}/abort`, next);
      continue;
    }
    form = new URLSearchParams(prompt === 'login' ? { prompt, login: accountId, password: 'any' } : { prompt });
  }
  throw new Error('the provider did not send the browser back to the app within 10 steps');
}
