import { httpBatchLink, httpLink, httpSubscriptionLink, splitLink } from '@trpc/client';
import { createTRPCReact } from '@trpc/react-query';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import superjson from 'superjson';
import type { TThreadRef } from '../../../shared/thread-key';
import type { AppRouter } from '../../../server/app/app-router';
import { stepUpLink } from './step-up-link';

export const trpc = createTRPCReact<AppRouter>();

export type TOutputs = inferRouterOutputs<AppRouter>;
export type TInputs = inferRouterInputs<AppRouter>;
export type TThreadItem = TOutputs['inbox']['thread']['items'][number];
export type TThreadSummary = TOutputs['inbox']['threads']['threads'][number];

export function createTrpcClient() {
  return trpc.createClient({
    links: [
      // A change that asks for a recent second-factor proof gets one, then is sent again (step-up-link.ts).
      stepUpLink,
      // Live updates over server-sent events; sign-in calls on their own (the server refuses them
      // in a batch); everything else batched over plain HTTP, at most as many as the server takes.
      splitLink({
        condition: (op) => op.type === 'subscription',
        true: httpSubscriptionLink({ url: '/trpc', transformer: superjson }),
        false: splitLink({
          condition: (op) => op.path.startsWith('auth.'),
          true: httpLink({ url: '/trpc', transformer: superjson }),
          false: httpBatchLink({ url: '/trpc', transformer: superjson, maxItems: 20 }),
        }),
      }),
    ],
  });
}

export function threadRefOf(item: { clientId: number | null; peerPhone: string | null }): TThreadRef {
  return item.clientId !== null ? { clientId: item.clientId } : { phone: item.peerPhone ?? '' };
}

export { threadKeyOf, threadKeyOfRef, type TThreadRef } from '../../../shared/thread-key';

export function threadPath(item: { clientId: number | null; peerPhone: string | null }): string {
  return item.clientId !== null ? `/inbox/client/${item.clientId}` : `/inbox/phone/${item.peerPhone ?? ''}`;
}
