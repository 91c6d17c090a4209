/**
 * Workflow histories to and from the JSON that Temporal's tools write (proto3 JSON, as `temporal workflow show
 * --output json`). Why not the SDK's `historyToJSON`/`historyFromJSON`: in this install @temporalio/common and
 * @temporalio/proto each carry their own copy of protobufjs, so the SDK's helpers fail with "type must be a Type"
 * (an `instanceof` across the two copies). Taking protojson from the copy @temporalio/proto uses avoids that.
 */
import { createRequire } from 'node:module';
import * as proto from '@temporalio/proto';
import { patchProtobufRoot } from '@temporalio/proto/lib/patch-protobuf-root';

type History = proto.temporal.api.history.v1.IHistory;

interface ProtoJson {
  toJson(type: unknown, message: unknown): unknown;
  fromJson(type: unknown, json: unknown, options: { ignoreUnknownFields: boolean }): History;
}

const requireFromProto = createRequire(require.resolve('@temporalio/proto'));
const protojson = requireFromProto('protobufjs/ext/protojson') as ProtoJson;
const root = patchProtobufRoot(proto) as unknown as { lookupType(name: string): unknown };
const historyType = root.lookupType('temporal.api.history.v1.History');

export function historyToJson(history: History): string {
  const message = proto.temporal.api.history.v1.History.fromObject(history);
  return JSON.stringify(protojson.toJson(historyType, message), null, 2);
}

/** Unknown fields (a newer server's) are ignored, as the SDK's own loader does. */
export function historyFromJson(json: string): History {
  return protojson.fromJson(historyType, JSON.parse(json), { ignoreUnknownFields: true });
}
