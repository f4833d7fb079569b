import type { TReader } from '../../server/core/visibility';

/** A reader on no wall (no user has id 0): sees every record that is not restricted, as any unwalled person does. */
export const UNWALLED_READER: TReader = { id: 0, role: 'director', ip: null, path: 'test' };
