import type {
  Branching,
  JoinChallengeMode,
  Plan,
  PollContent,
  PollStatus,
  QuestionStatus,
  Scope,
  SessionPace,
  SessionStatus,
  ShowScores,
  SlideKind,
  SupportedLanguage,
  TextFilter,
  ThemeColors,
  ThemeFont,
  ThemeLogo,
} from '@pollkit/contracts';
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
  /** OAuth 2.0 client credentials are switched on per (enterprise) workspace. */
  oauth_enabled: ColumnType<boolean, boolean | undefined, boolean>;
  /** New polls' default language (a supported tag, `@pollkit/contracts` languages.ts). */
  language: ColumnType<SupportedLanguage, SupportedLanguage | undefined, SupportedLanguage>;
  /** The pages' theme where neither the poll nor the session names one. */
  theme_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** Exact origins allowed to frame the workspace's pages (`frame-ancestors`). */
  embed_origins: ColumnType<string[], string | undefined, string>;
  /** The text filter's extra terms (docs/moderation.md). */
  blocked_terms: ColumnType<string[], string | undefined, string>;
  allowed_terms: ColumnType<string[], string | undefined, string>;
  created_at: CreatedAt;
}

export interface ThemesTable {
  id: string;
  workspace_id: string;
  name: string;
  colors: ColumnType<ThemeColors, string, string>;
  logo: ColumnType<ThemeLogo | null, string | null, string | null>;
  font: ThemeFont;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

interface ApiKeysTable {
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
  /** The scopes the key holds; null for every scope (keys made before keys had scopes, or without a list). */
  scopes: ColumnType<Scope[] | null, string | null | undefined, string | null>;
  /**
   * The OAuth client whose access token created the key (or created the key that created it): revoking
   * the client revokes the key. Null for keys made otherwise.
   */
  created_by_oauth_client_id: ColumnType<string | null, string | null | undefined, never>;
}

interface PollsTable {
  id: string;
  workspace_id: string;
  title: string;
  status: PollStatus;
  content: ColumnType<PollContent, string, string>;
  branching: ColumnType<Branching | null, string | null, string | null>;
  language: ColumnType<SupportedLanguage, SupportedLanguage | undefined, SupportedLanguage>;
  theme_id: ColumnType<string | null, string | null | undefined, string | null>;
  text_filter: ColumnType<TextFilter, TextFilter | undefined, TextFilter>;
  max_respondents: ColumnType<number | null, number | null | undefined, number | null>;
  created_at: CreatedAt;
  updated_at: Timestamp;
  published_at: NullableTimestamp;
  closed_at: NullableTimestamp;
}

/** `value` holds the one answer field of the slide's kind, as sent (normalised). */
export interface AnswerValue {
  optionIds?: string[];
  scaleValue?: number;
  scaleValues?: Record<string, number>;
  rankingOrder?: string[];
  text?: string;
}

interface AnswersTable {
  id: string;
  poll_id: string;
  slide_id: string;
  voter_id: string;
  kind: 'vote' | 'response';
  slide_kind: SlideKind;
  value: ColumnType<AnswerValue, string, string>;
  status: QuestionStatus | null;
  upvotes: ColumnType<number, number | undefined, number>;
  /** The live session the answer came from (null for API answers). */
  session_id: ColumnType<string | null, string | null | undefined, never>;
  /** Quiz points the answer earned in a live session (null elsewhere). */
  points: ColumnType<number | null, number | null | undefined, never>;
  created_at: CreatedAt;
}

/** A respondent counted against a poll's `max_respondents`: `v:<voterId>` or `p:<participantId>`. */
interface RespondentSeatsTable {
  poll_id: string;
  holder: string;
}

interface PollSeatCountsTable {
  poll_id: string;
  taken: number;
}

interface QuestionUpvotesTable {
  question_id: string;
  voter_id: string;
  created_at: CreatedAt;
}

interface PollVotersTable {
  poll_id: string;
  voter_id: string;
}

/** int8 columns: strings from `pg`, numbers from PGlite; read them through `toNumber`. */
type Int8 = ColumnType<string | number, number, number>;

interface PollStatsTable {
  poll_id: string;
  voters: Int8;
  answers: Int8;
}

interface SlideTalliesTable {
  poll_id: string;
  slide_id: string;
  key: string;
  count: Int8;
  total: number;
}

interface OpenTextCountsTable {
  poll_id: string;
  slide_id: string;
  text_hash: string;
  text: string;
  count: Int8;
}

interface WordCountsTable {
  poll_id: string;
  slide_id: string;
  word: string;
  count: Int8;
}

/** A session's share of the aggregates above (migration 0012): the same columns, keyed by session. */
interface SessionStatsTable {
  session_id: string;
  voters: Int8;
  answers: Int8;
}

interface SessionVotersTable {
  session_id: string;
  voter_id: string;
}

interface SessionTalliesTable {
  session_id: string;
  slide_id: string;
  key: string;
  count: Int8;
  total: number;
}

interface SessionTextCountsTable {
  session_id: string;
  slide_id: string;
  text_hash: string;
  text: string;
  count: Int8;
}

interface SessionWordCountsTable {
  session_id: string;
  slide_id: string;
  word: string;
  count: Int8;
}

/** A claimed `Idempotency-Key` (docs/idempotency.md). */
interface IdempotencyKeysTable {
  workspace_id: string;
  key: string;
  /** SHA-256 (hex) of method, route, path parameters and the canonical JSON body. */
  fingerprint: string;
  state: 'in_progress' | 'completed';
  claim_token: string;
  request_id: string;
  response_status: number | null;
  /** The JSON response body exactly as first sent; sealed (core/sealed-secrets.ts) when `response_sealed`. */
  response_body: string | null;
  /** The reply carries a secret (a key's, a host token, a signing secret): `response_body` is sealed. */
  response_sealed: ColumnType<boolean, boolean | undefined, boolean>;
  /** The respondent the request was about (its participant, or its body's `voterId`): erasure's lookup. */
  voter_id: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  /** In progress: the end of the claim's lease; completed: 24 h after the claim. */
  expires_at: Timestamp;
}

/** An OAuth 2.0 client; its id is the `client_id`. */
interface OAuthClientsTable {
  id: string;
  workspace_id: string;
  name: string;
  /** SHA-256 (hex) of the client secret; the secret itself is never stored. */
  secret_hash: string;
  allowed_scopes: ColumnType<Scope[], string, string>;
  created_at: CreatedAt;
  revoked_at: NullableTimestamp;
}

/** An issued access token, known only by its SHA-256. */
interface OAuthTokensTable {
  id: string;
  client_id: string;
  workspace_id: string;
  token_hash: string;
  scopes: ColumnType<Scope[], string, string>;
  expires_at: Timestamp;
  created_at: CreatedAt;
}

export interface SessionsTable {
  id: string;
  workspace_id: string;
  poll_id: string;
  /** Null for a self-paced session created with `pin: false` (it is joined by its link only). */
  pin: string | null;
  /** `presenter`: one shared slide; `audience`: each participant walks the deck (their row says where). */
  pace: ColumnType<SessionPace, SessionPace | undefined, SessionPace>;
  /** A self-paced session's link id (`lnk_…`): joins without the PIN. Shown in every read, as the PIN is. */
  link_id: string | null;
  /** A self-paced session's `showScores`; null for presenter-paced ones. */
  show_scores: ShowScores | null;
  /** When the session ends itself (sessions/session-closer.ts). */
  closes_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  status: SessionStatus;
  current_slide_index: ColumnType<number, number | undefined, number>;
  results_visible: ColumnType<boolean, boolean | undefined, boolean>;
  locked: ColumnType<boolean, boolean | undefined, boolean>;
  /** SHA-256 (hex) of the host token; the token itself is never stored. */
  host_token_hash: string;
  /** The scopes the host token carries (those of the credential that created it); null for every scope. */
  host_token_scopes: ColumnType<Scope[] | null, string | null | undefined, string | null>;
  /** The number of the session's last event (session_events): what `Last-Event-ID` refers to. */
  seq: ColumnType<number, number | undefined, number>;
  /** When the current slide went live: quiz answers are timed from it. */
  slide_started_at: NullableTimestamp;
  created_at: CreatedAt;
  started_at: NullableTimestamp;
  ended_at: NullableTimestamp;
  /** Participants the session takes at most; a join past it is 409 `session_full`. */
  max_participants: number;
  /** Overrides the poll's language; null inherits it. */
  language: ColumnType<SupportedLanguage | null, SupportedLanguage | null | undefined, SupportedLanguage | null>;
  /** Overrides the poll's theme; null inherits it. */
  theme_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** Participants who joined (removed ones included: a seat is not given back). */
  participant_count: ColumnType<number, number | undefined, number>;
  /** No new participants (those who joined carry on): 409 `joins_locked`. */
  joins_locked: ColumnType<boolean, boolean | undefined, boolean>;
  /** `pow`: a new participant solves a proof-of-work challenge before joining (live/join-challenge.ts). */
  join_challenge: ColumnType<JoinChallengeMode | null, JoinChallengeMode | null | undefined, JoinChallengeMode | null>;
}

interface SessionParticipantsTable {
  id: string;
  session_id: string;
  /** SHA-256 (hex) of the participant token. */
  token_hash: string;
  name: string | null;
  created_at: CreatedAt;
  /** Removed by the host: the token names nobody any more; the answers stay. */
  removed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** Self-paced: the deck index of the participant's slide. */
  slide_index: ColumnType<number, number | undefined, number>;
  /** Self-paced: when they reached it (null: when they joined, or the session started if later). */
  slide_reached_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** Self-paced: slides they moved past (answered or skipped). */
  steps: ColumnType<number, number | undefined, number>;
  /** Self-paced: answerable slides they moved past without an answer. */
  skips: ColumnType<number, number | undefined, number>;
  /** Self-paced: when they walked past the last slide of their path. */
  completed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** The customer's own id for this person, given at join (unverified; docs/privacy.md). */
  respondent_id: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A session's history: one row per control action, replayed to streams that reconnect. */
interface SessionEventsTable {
  session_id: string;
  seq: number;
  type: string;
  /** The event's data as JSON text. */
  data: string;
  created_at: CreatedAt;
}

/** Bigint counters: a string on `pg`, a number on PGlite (read them through Number()). */
type Counter = ColumnType<string | number, number | undefined, number>;

export interface WebhookEndpointsTable {
  id: string;
  workspace_id: string;
  url: string;
  description: ColumnType<string, string | undefined, string>;
  /** JSON array of event types, or `["*"]` for every type. */
  events: ColumnType<string[], string, string>;
  status: ColumnType<'enabled' | 'disabled', 'enabled' | 'disabled' | undefined, 'enabled' | 'disabled'>;
  disabled_reason: string | null;
  disabled_at: NullableTimestamp;
  /** The signing secret, sealed (core/sealed-secrets.ts); never stored in the clear. */
  secret_sealed: string;
  /** After a rotation, the replaced secret (sealed), which still signs until `previous_secret_expires_at`. */
  previous_secret_sealed: string | null;
  previous_secret_expires_at: NullableTimestamp;
  attempts: Counter;
  failed_attempts: Counter;
  succeeded_deliveries: Counter;
  failed_deliveries: Counter;
  consecutive_failures: ColumnType<number, number | undefined, number>;
  last_attempt_at: NullableTimestamp;
  last_success_at: NullableTimestamp;
  created_at: CreatedAt;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

interface WebhookDeliveriesTable {
  id: string;
  endpoint_id: string;
  /** The event's id (`webhook-id`): the same in every endpoint's delivery of it. */
  event_id: string;
  event_type: string;
  /** The body, exactly as every attempt sends and signs it. */
  payload: string;
  status: 'pending' | 'succeeded' | 'failed';
  /** Attempts claimed so far: a worker claims attempt n + 1 by raising it (delivery.repository.ts). */
  attempts: ColumnType<number, number | undefined, number>;
  /** The attempts made before the last redeliver: the retry schedule counts from there. */
  schedule_offset: ColumnType<number, number | undefined, number>;
  /** Due time while pending; while an attempt is in flight, the end of its lease. */
  next_attempt_at: NullableTimestamp;
  created_at: CreatedAt;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

/**
 * The events of one answer-writer flush for one endpoint, not yet fanned out into deliveries
 * (migrations/0007, outbox.repository.ts `fanOutEventBatches`): the three arrays run in parallel.
 */
interface WebhookEventBatchesTable {
  id: string;
  endpoint_id: string;
  event_ids: string[];
  event_types: string[];
  payloads: string[];
  created_at: CreatedAt;
}

interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  endpoint_id: string;
  attempt: number;
  outcome: 'succeeded' | 'failed';
  response_status: number | null;
  latency_ms: number;
  response_excerpt: string | null;
  error: string | null;
  started_at: Timestamp;
}

interface ServerKeysTable {
  name: string;
  key: string;
  created_at: CreatedAt;
}

/** Join challenges that joined a participant, until they expire: each joins once (without Redis). */
interface SpentJoinChallengesTable {
  /** The challenge's hex SHA-256, as issued. */
  challenge: string;
  expires_at: Date;
}

export interface Database {
  workspaces: WorkspacesTable;
  themes: ThemesTable;
  api_keys: ApiKeysTable;
  polls: PollsTable;
  answers: AnswersTable;
  question_upvotes: QuestionUpvotesTable;
  respondent_seats: RespondentSeatsTable;
  poll_seat_counts: PollSeatCountsTable;
  poll_voters: PollVotersTable;
  poll_stats: PollStatsTable;
  slide_tallies: SlideTalliesTable;
  open_text_counts: OpenTextCountsTable;
  word_counts: WordCountsTable;
  session_stats: SessionStatsTable;
  session_voters: SessionVotersTable;
  session_tallies: SessionTalliesTable;
  session_text_counts: SessionTextCountsTable;
  session_word_counts: SessionWordCountsTable;
  idempotency_keys: IdempotencyKeysTable;
  oauth_clients: OAuthClientsTable;
  oauth_tokens: OAuthTokensTable;
  sessions: SessionsTable;
  session_participants: SessionParticipantsTable;
  session_events: SessionEventsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_event_batches: WebhookEventBatchesTable;
  webhook_attempts: WebhookAttemptsTable;
  server_keys: ServerKeysTable;
  spent_join_challenges: SpentJoinChallengesTable;
}

export type AnswerRow = Selectable<AnswersTable>;
export type NewAnswer = Insertable<AnswersTable>;

export type ThemeRow = Selectable<ThemesTable>;
export type WorkspaceRow = Selectable<WorkspacesTable>;
export type NewWorkspace = Insertable<WorkspacesTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type PollRow = Selectable<PollsTable>;
export type NewPoll = Insertable<PollsTable>;
export type PollUpdate = Updateable<PollsTable>;

export type IdempotencyKeyRow = Selectable<IdempotencyKeysTable>;

export type OAuthClientRow = Selectable<OAuthClientsTable>;
export type OAuthTokenRow = Selectable<OAuthTokensTable>;

export type SessionRow = Selectable<SessionsTable>;
export type SessionEventRow = Selectable<SessionEventsTable>;
export type ParticipantRow = Selectable<SessionParticipantsTable>;

export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type WebhookAttemptRow = Selectable<WebhookAttemptsTable>;
