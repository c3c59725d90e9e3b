import type { VitePWAOptions } from 'vite-plugin-pwa';

/**
 * The installable app (vite-plugin-pwa): the manifest, and the service worker built from
 * `src/offline/sw.ts` with Workbox's modules and the list of the build's files to precache.
 * Registration is the app's own (`src/offline/worker.ts`), in prompt mode: a new version waits for
 * the person's Reload. The icons are made from one SVG by `npm run icons -w web` (pwa-assets.config.ts).
 */
export const pwaOptions: Partial<VitePWAOptions> = {
  strategies: 'injectManifest',
  srcDir: 'src/offline',
  filename: 'sw.ts',
  registerType: 'prompt',
  injectRegister: false,
  manifestFilename: 'manifest.webmanifest',
  // the icons are among the build's files already (public/icons)
  includeManifestIcons: false,
  manifest: {
    id: '/',
    name: 'Taskboard',
    short_name: 'Taskboard',
    description: 'Boards, lists and cards for teams, live.',
    start_url: '/',
    scope: '/',
    display: 'standalone',
    // the light theme's top bar and page; the dark theme's are in index.html's theme-color metas
    theme_color: '#ffffff',
    background_color: '#f4f5f7',
    icons: [
      { src: '/icons/pwa-64x64.png', sizes: '64x64', type: 'image/png' },
      { src: '/icons/pwa-192x192.png', sizes: '192x192', type: 'image/png' },
      { src: '/icons/pwa-512x512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
      { src: '/icons/maskable-icon-512x512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
      { src: '/icons/taskboard.svg', sizes: 'any', type: 'image/svg+xml', purpose: 'any' },
    ],
  },
  injectManifest: {
    // the shell: every file of the build, the lazy pages' chunks too, so any page opens offline
    globPatterns: ['**/*.{js,css,html,svg,png,ico}'],
    maximumFileSizeToCacheInBytes: 3 * 1024 * 1024,
  },
  devOptions: { enabled: false },
};
