/**
 * Who makes a request on the Chef surface: a console user (through a Chef key,
 * an API token or a session), or a Chef API client (a node's machine identity,
 * or the organization's validator). Users keep exactly their console
 * permissions; clients have the narrow rights listed in `clientMay`.
 */
import type { Access } from './permissions';

export type Requestor =
  | { kind: 'user'; access: Access }
  | { kind: 'client'; clientId: string; name: string; validator: boolean; via: string };

/** What a client may do; everything else is refused (deny by default). */
export type ClientRight =
  /** GET policy_groups/:g/policies/:p, cookbook artifacts and their files: what a node converges from. */
  | 'converge.read'
  /** Create, read and update the node object named like the client. */
  | 'node.own'
  /** POST /clients: the validator registering a new node's client. */
  | 'client.register';

export function clientMay(r: Extract<Requestor, { kind: 'client' }>, right: ClientRight): boolean {
  if (r.validator) return right === 'client.register';
  return right === 'converge.read' || right === 'node.own';
}

/** The audit actor for a requestor. */
export function requestorActor(r: Requestor): { userId: string | null; email: string; via?: string } {
  if (r.kind === 'user') return r.access;
  return { userId: null, email: `client:${r.name}`, via: r.via };
}

/** The access to check console permissions with: users' own, none for clients. */
export function requestorAccess(r: Requestor): Access | null {
  return r.kind === 'user' ? r.access : null;
}
