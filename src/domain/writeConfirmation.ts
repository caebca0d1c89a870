/**
 * Makes a tenant's writes durable before they are answered or recorded as done: implemented with
 * WAIT for the replicas of the masters that took them (store/replicaAck.ts, composed in app.ts).
 */
export interface WriteConfirmation {
  confirm(tenantId: string): Promise<void>;
}
