// Console channels of the settings domain (merged into CHANNELS by channels.ts): service settings, users and
// roles, and the configuration file's export, preview and import.
import { z } from 'zod';
import { channel } from './channel-def';
import {
  ConfigFileSchema,
  CreateUserInputSchema,
  ImportPlanSchema,
  ManagedUserSchema,
  SetRoleInputSchema,
  SettingsPatchSchema,
  SettingsViewSchema,
  UserIdInputSchema,
} from './schemas/settings';

const Empty = z.object({}).strict();
/** The file as read by the console; checked against ConfigFileSchema by the handler so errors name the file's fields. */
const FileInput = z.object({ file: z.unknown() }).strict();

export const settingsChannels = {
  'settings:get': channel(Empty, SettingsViewSchema),
  'settings:update': channel(SettingsPatchSchema, SettingsViewSchema),
  'users:list': channel(Empty, z.array(ManagedUserSchema)),
  'users:create': channel(CreateUserInputSchema, ManagedUserSchema),
  'users:setRole': channel(SetRoleInputSchema, ManagedUserSchema),
  'users:deactivate': channel(UserIdInputSchema, ManagedUserSchema),
  'users:reactivate': channel(UserIdInputSchema, ManagedUserSchema),
  'config:export': channel(Empty, ConfigFileSchema),
  'config:preview': channel(FileInput, ImportPlanSchema),
  'config:import': channel(FileInput, ImportPlanSchema),
};
