import { openText, sealText, subkeyFrom } from '../signing';

// A firm number's provider key and webhook secret are kept sealed under a key derived from the
// signing key file (server/numbers/README.md "Several numbers"): the database, or a copy of it,
// holds nothing a thief could send or post with.
const INFO = 'firm-chat number keys v1';

export type TNumberKeys = { seal: (plain: string) => string; open: (sealed: string) => string };

/** The sealing of a signing key file, derived at first use (a router made for a test that never uses it reads no file). */
export function numberKeysFrom(file: string): () => TNumberKeys {
  let keys: TNumberKeys | undefined;
  return () => {
    if (keys) return keys;
    const { key } = subkeyFrom(file, INFO, { create: false });
    keys = { seal: (plain) => sealText(key, plain), open: (sealed) => openText(key, sealed) };
    return keys;
  };
}
