import { catalogue } from '../i18n/messages.ts';

/** The words of the installable app: the offline banner, refused writes, the update prompt. */
export const offlineText = catalogue('offline', {
  offlineBanner: 'Offline: changes are paused. You see what this browser kept from your last visit.',
  unreachableBanner: 'Offline: changes are paused. The server cannot be reached; you see what this browser kept from your last visit.',
  writeRefused: 'You are offline. Try again once the connection is back.',
  readUnavailable: 'You are offline, and this was not kept for reading offline.',
  updateReady: 'A new version is ready',
  reload: 'Reload',
});
