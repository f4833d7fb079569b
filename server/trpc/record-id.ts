import { z } from 'zod';

/** A row id as PostgreSQL stores it (`integer`): a larger number is refused here, not by the database. */
export const ZRecordId = z.number().int().positive().max(2_147_483_647, 'No record has that id.');
