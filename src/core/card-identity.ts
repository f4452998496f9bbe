// What an agent says about itself: its name, description, role, tags and version. Both cards
// are built from it, the native one (agent/agent-card.ts) and the public A2A one
// (a2a/card/agent-card.ts); it sits below both so neither card folder reaches into the other.
export interface CardIdentity {
  readonly name: string;
  readonly description?: string;
  readonly role?: string;
  readonly tags?: readonly string[];
  readonly version?: string;
}
