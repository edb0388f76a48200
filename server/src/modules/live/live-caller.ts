import type { ParticipantRow, SessionRow } from '../../db/schema.js';
import type { HeldScopes } from '../credentials/credential-scopes.js';

/** A host route called with `X-Host-Token`: the one session the token controls. */
export interface HostGrant {
  sessionId: string;
  workspaceId: string;
  /**
   * The scopes the token carries: those of the credential that created it (`all` for a token
   * created before tokens carried scopes). They bound what it reads of the session: routes'
   * `hostTokenScopes`, the deck's answer key, what its event stream carries.
   */
  scopes: HeldScopes;
}

/**
 * A participant route's caller, as the pipeline resolved it: the session the PIN names (open, not
 * ended), and the participant its `X-Participant-Token` names, if it sent one that does.
 */
export interface LiveCaller {
  session: SessionRow;
  participant: ParticipantRow | undefined;
  /** An `X-Participant-Token` was sent but names no participant of this session. */
  tokenRejected: boolean;
  /** `X-Participant-Token` as sent (join echoes it back when it resumes). */
  token: string | undefined;
  /** The client's address as per-address limits count it (core/client-address.ts: IPv6 by /64). */
  address: string;
}
