import type { Branching, Plan, PollContent, PollStatus } from '@pollkit/contracts';
import type { ColumnType, Insertable, Selectable, Updateable } from 'kysely';

/** Timestamps: written as Date (or defaulted by the database), read as Date on both drivers. */
type CreatedAt = ColumnType<Date, Date | undefined, never>;
type Timestamp = ColumnType<Date, Date, Date>;
type NullableTimestamp = ColumnType<Date | null, Date | null | undefined, Date | null>;

export interface WorkspacesTable {
  id: string;
  name: string;
  plan: Plan;
  /** Enterprise override of the per-credential requests-per-minute limit; null = plan default. */
  rate_limit_per_minute: number | null;
  created_at: CreatedAt;
}

export interface ApiKeysTable {
  id: string;
  workspace_id: string;
  name: string;
  /** First characters of the secret, shown in listings so a key can be recognised. */
  prefix: string;
  /** SHA-256 (hex) of the whole secret; the secret itself is never stored. */
  secret_hash: string;
  created_at: CreatedAt;
  revoked_at: NullableTimestamp;
  /** Set when the key is rotated: after this instant it answers `expired_api_key`. */
  expires_at: NullableTimestamp;
}

export interface PollsTable {
  id: string;
  workspace_id: string;
  title: string;
  status: PollStatus;
  content: ColumnType<PollContent, string, string>;
  branching: ColumnType<Branching | null, string | null, string | null>;
  created_at: CreatedAt;
  updated_at: Timestamp;
  published_at: NullableTimestamp;
  closed_at: NullableTimestamp;
}

export interface Database {
  workspaces: WorkspacesTable;
  api_keys: ApiKeysTable;
  polls: PollsTable;
}

export type WorkspaceRow = Selectable<WorkspacesTable>;
export type NewWorkspace = Insertable<WorkspacesTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type PollRow = Selectable<PollsTable>;
export type NewPoll = Insertable<PollsTable>;
export type PollUpdate = Updateable<PollsTable>;
