// The package ships no types: its one export, the Redis Cluster hash slot of a key.
declare module 'cluster-key-slot' {
  export default function calculateSlot(key: string): number;
}
