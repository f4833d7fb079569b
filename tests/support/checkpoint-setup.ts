import { loadConfig } from '../../server/core/config';
import { loadSigningKey } from '../../server/signing';
import { startLiveSetup } from './live-setup';

/** The test servers' key file: the default beside DATA_DIR, as each server reads it. */
export const firmKeyFile = loadConfig({ LOG_LEVEL: 'silent' }).signingKeyFile;
export const firmKey = () => loadSigningKey(firmKeyFile, { create: false });

/**
 * A server whose own minute job is given an hour: the checkpoints a test looks at are made by the
 * test itself (or by an export), in turn.
 */
export const startCheckpointSetup = () => startLiveSetup({}, { auditCheckpoints: { intervalMs: 3_600_000 } });
