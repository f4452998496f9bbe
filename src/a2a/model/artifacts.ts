// Artifacts across the A2A boundary. The id, name, parts and metadata have A2A twins; the
// native descriptors that do not (`kind`, `uri`, `media_type`, `action_id`, `timestamp`) ride
// in the A2A metadata under `svcArtifact`, and come back from there.
import { create, type JsonObject } from '@bufbuild/protobuf';
import type { Artifact as NativeArtifact } from '../../../generated/types/index.js';
import { ArtifactSchema, type Artifact } from '../../../generated/proto/lf/a2a/v1/a2a_pb.js';
import { nowIso } from '../../core/clock.js';
import { partFromA2a, partToA2a, partToA2aJson } from './parts.js';

/** The metadata key holding the native descriptors of an artifact. */
const ARTIFACT_KEY = 'svcArtifact';

const DESCRIPTORS = ['kind', 'uri', 'media_type', 'action_id', 'timestamp'] as const;

export function artifactToA2a(artifact: NativeArtifact): Artifact {
  return create(ArtifactSchema, {
    artifactId: artifact.id,
    name: artifact.name ?? '',
    parts: artifact.parts.map(partToA2a),
    metadata: a2aMetadata(artifact),
  });
}

/** artifactToA2a in ProtoJSON, written directly as messages.ts writes messages (fields at their defaults left out). */
export function artifactToA2aJson(artifact: NativeArtifact): JsonObject {
  const json: JsonObject = {};
  if (artifact.id) json.artifactId = artifact.id;
  if (artifact.name) json.name = artifact.name;
  if (artifact.parts.length > 0) json.parts = artifact.parts.map(partToA2aJson);
  json.metadata = a2aMetadata(artifact);
  return json;
}

/** The artifact's metadata with its native descriptors under `svcArtifact`. */
function a2aMetadata(artifact: NativeArtifact): JsonObject {
  const descriptors: JsonObject = {};
  for (const key of DESCRIPTORS) {
    const value = artifact[key];
    if (value !== undefined && value !== null) descriptors[key] = value;
  }
  return { ...(artifact.metadata as JsonObject | undefined), [ARTIFACT_KEY]: descriptors };
}

export function artifactFromA2a(artifact: Artifact, pointer: string): NativeArtifact {
  const { [ARTIFACT_KEY]: carried, ...metadata } = artifact.metadata ?? {};
  const descriptors = (carried && typeof carried === 'object' && !Array.isArray(carried) ? carried : {}) as Record<
    string,
    unknown
  >;
  const text = (key: string): string | null => (typeof descriptors[key] === 'string' ? (descriptors[key] as string) : null);
  return {
    id: artifact.artifactId,
    parts: artifact.parts.map((part, index) => partFromA2a(part, `${pointer}/parts/${index}`)),
    metadata,
    timestamp: text('timestamp') ?? nowIso(),
    kind: text('kind') ?? 'result',
    name: artifact.name || null,
    uri: text('uri'),
    media_type: text('media_type'),
    action_id: text('action_id'),
  };
}
