import optimizeLocales from '@react-aria/optimize-locales-plugin';
import react from '@vitejs/plugin-react';
import { defaultClientConditions, defineConfig } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';
import { pagePreloads } from './build/page-preloads.ts';
import { precompileMessages } from './build/precompile-messages.ts';
import { pwaOptions } from './pwa.config.ts';

// `npm run dev`: Vite serves the app with hot reload and hands the API's paths to the server.
const api = process.env.TASKBOARD_API ?? 'http://127.0.0.1:3000';
const proxied = ['/api', '/v2', '/openapi.json', '/docs', '/healthz', '/readyz'];

export default defineConfig({
  // React Aria (the date picker) ships its words in 34 languages: keep only the app's (docs/decisions/0270)
  plugins: [
    react(),
    optimizeLocales.vite({ locales: ['en-US', 'de-DE', 'fr-FR', 'ar-AE'] }),
    // the messages compiled to ICU syntax trees, and no ICU parser in the bundle (docs/decisions/0277)
    precompileMessages(),
    // the chunks of the pages loaded apart from the entry, which the server names in a Link header (docs/decisions/0278)
    pagePreloads({
      '/boards/:boardId': 'src/board/BoardPage.tsx',
      '/sign-in': 'src/people/SignInPage.tsx',
      '/setup': 'src/people/SetupPage.tsx',
      '/invitations': 'src/people/InvitationPage.tsx',
      '/reset': 'src/people/ResetPasswordPage.tsx',
      '/reset-password': 'src/people/ResetPasswordPage.tsx',
      '/forgot-password': 'src/people/ForgotPasswordPage.tsx',
      '/account': 'src/account/AccountPage.tsx',
      '/admin/*': 'src/admin/AdminPage.tsx',
      '/notifications': 'src/inbox/NotificationsPage.tsx',
      '/my-tasks': 'src/inbox/MyTasksPage.tsx',
      '/imports/:importId/people': 'src/imports/ImportPeoplePage.tsx',
    }),
    VitePWA(pwaOptions),
  ],
  // `@taskboard/client` from its TypeScript source, as everywhere in this repository (docs/decisions/0072).
  resolve: { conditions: ['taskboard-source', ...defaultClientConditions] },
  build: { chunkSizeWarningLimit: 800, outDir: 'dist', emptyOutDir: true, assetsDir: 'assets', sourcemap: false, target: 'es2022' },
  server: { port: Number(process.env.WEB_DEV_PORT ?? 5173), proxy: Object.fromEntries(proxied.map((path) => [path, { target: api, changeOrigin: false }])) },
});
