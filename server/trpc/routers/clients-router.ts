import { z } from 'zod';
import { createClient, getClient, listClients } from '../../services/clients';
import { authedProcedure, router } from '../init';

const ZClient = z.object({ id: z.number(), name: z.string(), phone: z.string(), email: z.string().nullable() });

export const clientsRouter = router({
  list: authedProcedure
    .input(z.object({ search: z.string().max(200).optional() }).optional())
    .output(z.array(ZClient))
    .query(({ input }) => listClients(input?.search)),

  get: authedProcedure
    .input(z.object({ clientId: z.number().int().positive() }))
    .output(ZClient)
    .query(({ input }) => getClient(input.clientId)),

  create: authedProcedure
    .input(
      z.object({
        name: z.string().trim().min(1, 'Enter a name').max(200),
        phone: z.string().trim().min(1, 'Enter a phone number').max(40),
        email: z.email('Enter a valid email').max(320).nullish(),
      }),
    )
    .output(ZClient)
    .mutation(({ input }) => createClient(input)),
});
