/**
 * Whether the pay page names the test-mode processor's test cards. Only where no real debt can be: the sandbox host,
 * or a production host in development or tests. A production host of a real deployment never names them, even if it
 * were given the test-mode processor (its configuration refuses one: core/platform/payment-config.ts): a debtor must
 * not read there how to "pay" without money.
 */
import type { Config } from '../../core/platform/config';
import type { PaymentProcessor } from '../../core/payments/processor';

export function showsTestCards(
  config: Pick<Config, 'mode' | 'appEnv'>,
  processorKind: PaymentProcessor['kind'] | undefined,
): boolean {
  if (processorKind !== 'test') return false;
  return config.mode === 'sandbox' || config.appEnv === 'development' || config.appEnv === 'test';
}
