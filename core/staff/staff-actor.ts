/**
 * Who is acting in the console: the signed-in staff user every write takes and the audit log records. Its own module
 * so the writes and the audit log both import it from below rather than from each other.
 */
import type { StaffRole } from './staff-users';

export interface StaffActor {
  userId: string;
  organizationId: string;
  email: string;
  role: StaffRole;
}
