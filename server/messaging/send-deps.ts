import type { ChatEvents } from '../events';
import type { TMediaStore } from '../media';
import type { ProviderClient } from '../provider';
import type { TProviderFor } from '../numbers';
import type { TConfig } from '../core/config';
import type { TLogger } from '../core/logger';

export type TSendDeps = {
  events: Pick<ChatEvents, 'publishQuietly'>;
  /** null in demo mode: nothing leaves the server. */
  provider: ProviderClient | null;
  /** Each firm number's client, its own key (server/numbers/README.md "Several numbers"); absent: `provider` sends for every number. */
  providerFor?: TProviderFor;
  config: Pick<TConfig, 'defaultCountry'>;
  mediaStore: TMediaStore;
  logger?: Pick<TLogger, 'warn'>;
};
