import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';
import { ToastProvider } from './ui/toasts';
import { loadPhoneFormatter } from './lib/format';
import { handleUnauthorized } from './features/auth';
import { createTrpcClient, trpc } from './lib/trpc';
import './styles.css';

function Root() {
  const [queryClient] = useState(() => {
    // Any UNAUTHORIZED answer (a session ended elsewhere) takes the app back to the sign-in page.
    const queryClient: QueryClient = new QueryClient({
      queryCache: new QueryCache({ onError: (error) => handleUnauthorized(queryClient, error) }),
      mutationCache: new MutationCache({ onError: (error) => handleUnauthorized(queryClient, error) }),
      defaultOptions: { queries: { staleTime: 10_000, retry: 1, refetchOnWindowFocus: false } },
    });
    return queryClient;
  });
  const [trpcClient] = useState(createTrpcClient);
  return (
    <trpc.Provider client={trpcClient} queryClient={queryClient}>
      <QueryClientProvider client={queryClient}>
        <ToastProvider>
          <App />
        </ToastProvider>
      </QueryClientProvider>
    </trpc.Provider>
  );
}

void loadPhoneFormatter();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <Root />
  </StrictMode>,
);
