// Console channels of the bank-routing domain (to be merged into CHANNELS by channels.ts): the four checks, live
// directory imports, and batch-CSV jobs (preview, start, progress, cancel, history, result rows).
import { z } from 'zod';
import { EnvironmentSchema } from './schemas/common';
import {
  BatchAnswerSchema,
  BatchJobSchema,
  BatchPreviewSchema,
  BatchRequestSchema,
  BatchResultRowsSchema,
  BicAnswerSchema,
  BicRequestSchema,
  ColumnMappingSchema,
  CorrespondentsAnswerSchema,
  CorrespondentsRequestSchema,
  DirectoryImportResultSchema,
  DirectoryImportSchema,
  DirectoryKindSchema,
  RoutingNumberAnswerSchema,
  RoutingNumberRequestSchema,
} from './schemas/routing';
import { channel, EnvInput, IdInput } from './channel-def';

const Env = EnvInput;
const Id = IdInput;
/** A path on the user's own disk, chosen in a file dialog (the console acts as the local owner). */
const FilePath = z.string().trim().min(1).max(4096);

export const routingChannels = {
  'routing:bic': channel(z.object({ ...Env, request: BicRequestSchema }), BicAnswerSchema),
  'routing:routingNumber': channel(z.object({ ...Env, request: RoutingNumberRequestSchema }), RoutingNumberAnswerSchema),
  'routing:correspondents': channel(z.object({ ...Env, request: CorrespondentsRequestSchema }), CorrespondentsAnswerSchema),
  'routing:batch': channel(z.object({ ...Env, request: BatchRequestSchema }), BatchAnswerSchema),
  'routing:import': channel(z.object({ path: FilePath, kind: DirectoryKindSchema.optional(), name: z.string().trim().min(1).max(200).optional() }), DirectoryImportResultSchema),
  'routing:directories': channel(z.object({}).strict(), z.array(DirectoryImportSchema)),
  'batch:preview': channel(z.object({ path: FilePath }), BatchPreviewSchema),
  'batch:start': channel(z.object({ path: FilePath, environment: EnvironmentSchema, mapping: ColumnMappingSchema.partial().optional() }), BatchJobSchema),
  'batch:progress': channel(z.object({ id: Id }), BatchJobSchema),
  'batch:cancel': channel(z.object({ id: Id }), BatchJobSchema),
  'batch:list': channel(
    z.object({ limit: z.number().int().min(1).max(100).default(50), offset: z.number().int().min(0).default(0) }),
    z.array(BatchJobSchema),
  ),
  'batch:results': channel(
    z.object({
      id: Id,
      invalidOnly: z.boolean().optional(),
      offset: z.number().int().min(0).default(0),
      limit: z.number().int().min(1).max(1000).default(100),
      search: z.string().max(200).optional(),
    }),
    BatchResultRowsSchema,
  ),
};
