/** Who is calling: derived from the API key on every `/v1` request, and the scope of every query it makes. */
import type { Mode } from '../platform/config';
import type { Organization } from './organizations';
import type { Scope } from './scopes';

export interface AuthContext {
  organizationId: string;
  /** The caller's organisation as loaded with the key (at most one second old). */
  organization: Organization;
  keyId: string;
  mode: Mode;
  scopes: ReadonlySet<Scope>;
  readOnly: boolean;
  hourlyLimit: number | null;
  dailyLimit: number | null;
}
