// The A2A 1.0 push-notification config (lf.a2a.v1.TaskPushNotificationConfig: id, task id,
// url, token, authentication { scheme, credentials }) both ways: read from a request into the
// stored form, with every field checked where a client sent it (so a bad one is -32602 naming
// the field, never a failed webhook call later), and written back as ProtoJSON. The checks:
// the URL parses, is at most 2,048 characters and passes the destination policy's URL rules
// (https unless http is allowed, no credentials in it, no refused literal address; host names
// are judged when each call connects); the id, when the client picks it, is 1 to 128 printable
// characters; the token and the credentials are printable ASCII (they travel as header values),
// at most 4,096 characters; a scheme is an HTTP token and needs credentials, which parley sends
// as given (it mints none of its own).
import { create, toJson, type JsonObject } from '@bufbuild/protobuf';
import {
  AuthenticationInfoSchema,
  TaskPushNotificationConfigSchema,
  type TaskPushNotificationConfig,
} from '../../../generated/proto/lf/a2a/v1/a2a_pb.js';
import { newId } from '../../core/ids.js';
import type { StoredPushConfig } from '../../stores/push-configs.js';
import type { TaskScope } from '../../stores/task-entries.js';
import { invalidParams } from '../errors/a2a-error.js';
import type { DestinationPolicy } from './destination-policy.js';

const MAX_URL = 2048;
const MAX_ID = 128;
const MAX_SECRET = 4096;

/** Visible ASCII and spaces inside: what a header value may carry without surprises. */
const HEADER_TEXT = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/;
/** An HTTP token (RFC 9110): the characters of an authentication scheme. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const PRINTABLE_ID = /^[\x21-\x7e]+$/;

/**
 * The stored form of a config the client sent, for `taskId` in `scope`; `pointer` is where the
 * config sits in the params (`''` for CreateTaskPushNotificationConfig). An empty id gets a new one.
 */
export function configFromA2a(
  message: TaskPushNotificationConfig,
  scope: TaskScope,
  taskId: string,
  policy: DestinationPolicy,
  pointer = '',
): StoredPushConfig {
  return {
    tenant: scope.tenant,
    owner: scope.principal,
    taskId,
    id: checkId(message.id, pointer),
    url: checkUrl(message.url, policy, pointer),
    token: checkSecret(message.token, `${pointer}/token`),
    authentication: checkAuthentication(message, pointer),
  };
}

/** The config as ProtoJSON, as Create, Get and List answer it. */
export function configToA2a(config: StoredPushConfig): JsonObject {
  const message = create(TaskPushNotificationConfigSchema, {
    tenant: config.tenant,
    id: config.id,
    taskId: config.taskId,
    url: config.url,
    token: config.token,
    ...(config.authentication ? { authentication: create(AuthenticationInfoSchema, config.authentication) } : {}),
  });
  return toJson(TaskPushNotificationConfigSchema, message) as JsonObject;
}

function checkId(id: string, pointer: string): string {
  if (id === '') return newId();
  if (id.length > MAX_ID || !PRINTABLE_ID.test(id)) {
    throw invalidParams(`${pointer}/id`, `must be 1 to ${MAX_ID} printable ASCII characters without spaces`);
  }
  return id;
}

function checkUrl(text: string, policy: DestinationPolicy, pointer: string): string {
  const at = `${pointer}/url`;
  if (text === '') throw invalidParams(at, 'is required: the webhook URL to call');
  if (text.length > MAX_URL) throw invalidParams(at, `must be at most ${MAX_URL} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalidParams(at, 'must be an absolute URL');
  }
  const problem = policy.checkUrl(url);
  if (problem) throw invalidParams(at, problem);
  return url.href;
}

function checkSecret(value: string, at: string): string {
  if (value === '') return value;
  if (value.length > MAX_SECRET || !HEADER_TEXT.test(value)) {
    throw invalidParams(at, `must be at most ${MAX_SECRET} printable ASCII characters (it is sent as a header value)`);
  }
  return value;
}

function checkAuthentication(message: TaskPushNotificationConfig, pointer: string): StoredPushConfig['authentication'] {
  const authentication = message.authentication;
  if (!authentication) return null;
  const at = `${pointer}/authentication`;
  if (!TOKEN.test(authentication.scheme))
    throw invalidParams(`${at}/scheme`, 'must be an HTTP authentication scheme such as Bearer');
  if (authentication.credentials === '') {
    throw invalidParams(
      `${at}/credentials`,
      'is required: this agent sends the credentials it is given and makes none of its own',
    );
  }
  return { scheme: authentication.scheme, credentials: checkSecret(authentication.credentials, `${at}/credentials`) };
}
