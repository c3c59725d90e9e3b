/**
 * The browser side of passkeys: @simplewebauthn/browser, loaded only when a person creates or uses
 * a passkey, so no page's first load carries it.
 */
export async function createPasskey(options: unknown): Promise<unknown> {
  const { startRegistration } = await import('@simplewebauthn/browser');
  return startRegistration({ optionsJSON: options as Parameters<typeof startRegistration>[0]['optionsJSON'] });
}

export async function askPasskey(options: unknown): Promise<unknown> {
  const { startAuthentication } = await import('@simplewebauthn/browser');
  return startAuthentication({ optionsJSON: options as Parameters<typeof startAuthentication>[0]['optionsJSON'] });
}
