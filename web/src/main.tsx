import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode, useSyncExternalStore } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { routes } from './App.tsx';
import { ApiError } from './api.ts';
import { boardQuery } from './board/store.ts';
import { datesWindowOf } from './board/views/window.ts';
import { followAccountIn, startLanguage } from './i18n/language.ts';
import { currentLanguage, onLanguageChange, timeZoneChanges } from './i18n/messages.ts';
import { UpdatePrompt } from './offline/AppStatus.tsx';
import { registerAppWorker } from './offline/worker.ts';
import { applyTheme } from './theme.ts';
import './styles.css';

applyTheme();
const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 30_000,
      refetchOnWindowFocus: false,
      // a read is tried even offline: the service worker may answer it from what it kept
      networkMode: 'offlineFirst',
      retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
    },
  },
});
followAccountIn(queryClient);
// Opened at a board's address, the board is read at once (a calendar or timeline link: its dates
// window first), beside the board page's code, not once that code has run (docs/decisions/0278).
const openedBoard = /^\/boards\/([^/]+)\/?$/.exec(window.location.pathname)?.[1];
if (openedBoard) {
  const asked = { current: datesWindowOf(new URLSearchParams(window.location.search)) };
  void queryClient.prefetchQuery(boardQuery(queryClient, decodeURIComponent(openedBoard), asked));
}
const router = createBrowserRouter(routes);

/** A new language or time zone draws the pages again in it (their words and dates are read while drawing). */
const speech = () => `${currentLanguage()} ${timeZoneChanges()}`;
function Pages() {
  const key = useSyncExternalStore(onLanguageChange, speech);
  return <RouterProvider key={key} router={router} />;
}

// The first drawing waits for the language's catalogue (English needs none), so no page flashes in English.
void startLanguage().then(() =>
  createRoot(document.getElementById('root') as HTMLElement).render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <Pages />
        <UpdatePrompt />
      </QueryClientProvider>
    </StrictMode>,
  ),
);
registerAppWorker(queryClient);
