/** Who is calling: derived from the API key on every `/v1` request, and the scope of every query it makes. */
import type { Mode } from './config';
import type { Scope } from './scopes';

export interface AuthContext {
  organizationId: string;
  keyId: string;
  mode: Mode;
  scopes: ReadonlySet<Scope>;
  readOnly: boolean;
  hourlyLimit: number | null;
  dailyLimit: number | null;
}
