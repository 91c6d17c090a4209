/**
 * The shapes that connect the router to what it runs: a route's guards and checks (supplied by the caller) and the
 * executor that runs its handler. Types only, so the router, the guards and the executor import them from here
 * instead of from each other.
 */
import type { ApiContext, HandlerResult, RouteDefinition, ValidatedRequest } from './route-definition';

/**
 * A route's check before validation: it refuses by throwing (or rejecting), and may prepare the request (the JSON
 * body parser). Guards run in order; each decides from the route's declaration whether it applies.
 */
export type RouteCheck = (ctx: ApiContext) => void | Promise<void>;
export type RouteGuard = (route: RouteDefinition) => RouteCheck | undefined;

/** Runs a validated request's handler (idempotent-execution.ts). */
export type Executor = (ctx: ApiContext, route: RouteDefinition, input: ValidatedRequest) => Promise<HandlerResult>;
