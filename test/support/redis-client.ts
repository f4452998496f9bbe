// The Redis connections tests open themselves (to seed, look at or gate what the code under test
// keeps there). Each gets an 'error' listener: tests stop and kill Redis on purpose, and a client
// without one makes ioredis print "[ioredis] Unhandled error event" for every failed reconnect.
// The failures that matter still reach the test, as the rejections of its commands.
import { Redis, type RedisOptions } from 'ioredis';

export function testRedis(url: string, options: RedisOptions = {}): Redis {
  const client = new Redis(url, options);
  client.on('error', () => undefined);
  return client;
}
