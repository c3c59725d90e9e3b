import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { routes } from './App.tsx';
import { ApiError } from './api.ts';
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
const router = createBrowserRouter(routes);

createRoot(document.getElementById('root') as HTMLElement).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
      <UpdatePrompt />
    </QueryClientProvider>
  </StrictMode>,
);
registerAppWorker(queryClient);
