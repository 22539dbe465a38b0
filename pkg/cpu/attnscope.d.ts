/* tslint:disable */
/* eslint-disable */

/**
 * A model, its decoding session and the backend it runs on, for the worker.
 */
export class Session {
    private constructor();
    free(): void;
    [Symbol.dispose](): void;
    /**
     * The current output decoded again with these heads off, and each original token's
     * log-probability with and without them (teacher-forced). The session is unchanged.
     */
    ablate(spec: string): Promise<any>;
    /**
     * The summaries of the trace so far (the mean and max over heads, the encoder rollout, the
     * source attribution), computed on the host from the trace the last answer carried.
     */
    analysis(): any;
    /**
     * The trace so far and the focused head's stages: `{trace, stages}`. The summaries the page
     * draws beside them come from [`Session::analysis`], asked for after the answer has gone
     * out, so that the first heatmap does not wait for them (or for their bytes to cross).
     */
    answer(): Promise<any>;
    /**
     * Occlusion attribution of decoder row `row`, beside its attention and rollout.
     */
    attribution(row: number): Promise<any>;
    /**
     * Undo the last step.
     */
    back(): Promise<any>;
    /**
     * `"webgpu"` or `"cpu"`.
     */
    backend(): string;
    /**
     * Beam search (width 1 to [`crate::session::MAX_BEAM_WIDTH`], length penalty α) over the
     * current source: the tree and the final ranking. The current sentence stays as it is.
     */
    beam(width: number, length_penalty: number): Promise<any>;
    /**
     * The model's config as a camelCase object.
     */
    config(): any;
    /**
     * Load a model on the CPU from weights streamed into this module ([`WeightsFile`]), so
     * that they are never held in JS as well, straight into packed weights: the file's
     * tensors are taken from it (it is empty afterwards) and each freed once used.
     */
    static createCpu(config: Uint8Array | number[], weights: WeightsFile, src_tokenizer: Uint8Array | number[], tgt_tokenizer: Uint8Array | number[]): Session;
    /**
     * Load a model from its four files onto `"webgpu"` or `"cpu"` (the worker asks
     * `chooseBackend` first). Bad files give a readable error, never a crash.
     */
    static create(config: Uint8Array | number[], weights: Uint8Array | number[], src_tokenizer: Uint8Array | number[], tgt_tokenizer: Uint8Array | number[], backend: string): Promise<Session>;
    /**
     * Replace the output with these target ids (a beam hypothesis), then decode to the end if
     * asked.
     */
    forceIds(ids: Uint32Array | number[], continue_to_end: boolean): Promise<any>;
    /**
     * Keep `index` steps, force token `id` as the next, and decode to the end if asked.
     */
    force(index: number, id: number, continue_to_end: boolean): Promise<any>;
    /**
     * Every head's importance for the current output: the fall of its total log-probability
     * when that head alone is off (one teacher-forced pass per head).
     */
    importance(): Promise<any>;
    /**
     * One token's journey through one layer: `stack` is `encoder` or `decoder`, `position` a
     * source position or a decoded decoder row (README, "Journey JSON").
     */
    inspect(stack: string, layer: number, position: number): Promise<any>;
    /**
     * The target-language codes a multi-target model reads at the start of the text
     * (`>>cmn_Hans<<`, …); empty for a model with one target language.
     */
    languageCodes(): string[];
    /**
     * Put a training snapshot's weights (`timeline/step-*.safetensors` of the same model) in
     * place of the current ones and decode the current sentence again with them.
     */
    loadSnapshot(weights: Uint8Array | number[]): Promise<any>;
    /**
     * Two (or more) sentences as one padded batch through the encoder: the padding mask at work.
     */
    paddedBatch(texts: string[]): Promise<any>;
    /**
     * The positional-encoding table `[maxLen, dModel]` and PE(t)·PE(t+Δ) for a few t.
     */
    positionalEncoding(): any;
    /**
     * Force the output to start with `prefix` (target text), then decode to the end.
     */
    prefix(prefix: string): Promise<any>;
    /**
     * Re-run the decoder over the whole output so far at once, without the cache, reading every
     * attention matrix and the logits back (the benchmark's "full re-decode", to weigh a cached
     * step against). Returns the number of decoder rows.
     */
    recomputeDecoder(): Promise<number>;
    /**
     * Back to the start token.
     */
    reset(): Promise<any>;
    /**
     * Decode until the end token.
     */
    runToEnd(): Promise<any>;
    /**
     * Decode from now on with these heads off (`KIND:LAYER:HEAD,…`; empty: every head on), and
     * decode the current sentence again with them; `null` when there is no sentence yet.
     */
    setAblation(spec: string): Promise<any>;
    /**
     * Which head's stages every answer carries. `kind`: encoderSelf, decoderSelf, cross.
     */
    setFocus(kind: string, layer: number, head: number): void;
    /**
     * `mode` is [`GREEDY`] or [`SAMPLE`] (with temperature, top-k and seed).
     */
    setSampling(mode: string, temperature: number, top_k: number, seed: number): void;
    /**
     * Encode a sentence, ready to step.
     */
    start(text: string): Promise<any>;
    /**
     * Decode one more token.
     */
    step(): Promise<any>;
    /**
     * Encode a sentence and decode it to the end.
     */
    translate(text: string): Promise<any>;
    /**
     * A second session over the same weights, sharing them (the comparison view's): every head
     * on, no sentence.
     */
    twin(): Session;
}

/**
 * A weights file, filled chunk by chunk to the size announced when it was made, and split into
 * its tensors as they arrive ([`WeightsStream`]): `Session.createCpu` frees each one as it is
 * used, so the module never holds the whole file beside the model it becomes.
 */
export class WeightsFile {
    free(): void;
    [Symbol.dispose](): void;
    /**
     * The file made of one buffer that is already whole (a shipped model's cached file).
     */
    static fromBytes(bytes: Uint8Array | number[]): WeightsFile;
    /**
     * An empty file that will hold `size` bytes (that much memory is reserved and given back
     * now, so that a file the module cannot hold is refused before any chunk is read).
     */
    constructor(size: number);
    /**
     * Append the next chunk; more than the announced size, or a header that is not a
     * safetensors file's, is refused.
     */
    push(chunk: Uint8Array | number[]): void;
    /**
     * The bytes read so far.
     */
    readonly length: number;
}

/**
 * The kinds of attention, `["encoderSelf", "decoderSelf", "cross"]`: each [`AttentionKind`] by
 * the name its JSON gives it, in the order the page lists them.
 */
export function attentionKinds(): any;

/**
 * The backend preferences, `["auto", "webgpu", "cpu"]` ([`BACKENDS`]): the page's choices.
 */
export function backends(): any;

/**
 * Refuse a MarianMT folder too big for the module (`error.tooBig`) from its small files
 * (`config.json`, `vocab.json`, `generation_config.json`) and its weights file's size, before
 * the weights are read: the import holds the checkpoint's file, every parameter as F32 and the
 * converted file at once.
 */
export function checkMarianSize(names: string[], files: Uint8Array[], weights_bytes: number): void;

/**
 * Refuse a model whose config (`config.json`'s bytes) and weights file size (`weights_bytes`)
 * need more memory than the module can address (`error.tooBig`, with the sizes), before
 * anything is read; `copies`: more F32 copies held beside (1 for an import).
 */
export function checkModelSize(config: Uint8Array | number[], weights_bytes: number, copies: number): void;

/**
 * The backend policy: `cpu` → the CPU; `webgpu` → WebGPU when the browser has any adapter;
 * `auto` → WebGPU only with a hardware adapter, since a software fallback adapter
 * (SwiftShader) emulates the GPU on the CPU and is slower than the CPU module.
 * Returns `{backend, note}`; `note` is `null` or `{key, params}` with `key` one of
 * `backend.webgpuNotAvailable` (`{reason}`, preference `webgpu`), `backend.webgpuUnavailable`
 * (`{reason}`, preference `auto`) and `backend.softwareFallback` (`{}`).
 */
export function chooseBackend(preference: string): Promise<any>;

/**
 * The decodings, `["greedy", "sample", "beam"]` ([`DECODINGS`]).
 */
export function decodings(): any;

/**
 * The head the page looks at first, `{kind, layer, head}` ([`Focus::DEFAULT`]).
 */
export function defaultFocus(): any;

/**
 * Convert the folder `folder` (its name, or undefined for loose files) whose files are
 * `names[i]` ↔ `files[i]`. Answers `{ config, weights, srcTokenizer, tgtTokenizer }` (bytes,
 * as `Session.create` takes them; the worker streams the weights into a `WeightsFile` for
 * `Session.createCpu`) and `notes` (what the import did not apply, in English).
 */
export function importMarian(folder: string | null | undefined, names: string[], files: Uint8Array[]): any;

/**
 * The files of a Hugging Face MarianMT folder that `importMarian` reads: `{required,
 * optional, weights}` (weights: the accepted files, the first found is used).
 */
export function marianFileNames(): any;

/**
 * The widest beam [`crate::session::Session::beam`] accepts ([`MAX_BEAM_WIDTH`]).
 */
export function maxBeamWidth(): number;

/**
 * The file names of a model folder: `{config, weights, srcTokenizer, tgtTokenizer}`.
 */
export function modelFileNames(): any;

/**
 * Run the static constructors once and install the panic hook, so a Rust panic reaches the
 * console with its message.
 */
export function start(): void;

export type InitInput = RequestInfo | URL | Response | BufferSource | WebAssembly.Module;

export interface InitOutput {
    readonly memory: WebAssembly.Memory;
    readonly __wbg_session_free: (a: number, b: number) => void;
    readonly __wbg_weightsfile_free: (a: number, b: number) => void;
    readonly attentionKinds: () => [number, number, number];
    readonly backends: () => [number, number, number];
    readonly checkMarianSize: (a: number, b: number, c: number, d: number, e: number) => [number, number];
    readonly checkModelSize: (a: number, b: number, c: number, d: number) => [number, number];
    readonly chooseBackend: (a: number, b: number) => any;
    readonly decodings: () => [number, number, number];
    readonly defaultFocus: () => [number, number, number];
    readonly importMarian: (a: number, b: number, c: number, d: number, e: number, f: number) => [number, number, number];
    readonly marianFileNames: () => [number, number, number];
    readonly maxBeamWidth: () => number;
    readonly modelFileNames: () => [number, number, number];
    readonly session_ablate: (a: number, b: number, c: number) => any;
    readonly session_analysis: (a: number) => [number, number, number];
    readonly session_answer: (a: number) => any;
    readonly session_attribution: (a: number, b: number) => any;
    readonly session_back: (a: number) => any;
    readonly session_backend: (a: number) => [number, number];
    readonly session_beam: (a: number, b: number, c: number) => any;
    readonly session_config: (a: number) => [number, number, number];
    readonly session_create: (a: number, b: number, c: number, d: number, e: number, f: number, g: number, h: number, i: number, j: number) => any;
    readonly session_createCpu: (a: number, b: number, c: number, d: number, e: number, f: number, g: number) => [number, number, number];
    readonly session_force: (a: number, b: number, c: number, d: number) => any;
    readonly session_forceIds: (a: number, b: number, c: number, d: number) => any;
    readonly session_importance: (a: number) => any;
    readonly session_inspect: (a: number, b: number, c: number, d: number, e: number) => any;
    readonly session_languageCodes: (a: number) => [number, number];
    readonly session_loadSnapshot: (a: number, b: number, c: number) => any;
    readonly session_paddedBatch: (a: number, b: number, c: number) => any;
    readonly session_positionalEncoding: (a: number) => [number, number, number];
    readonly session_prefix: (a: number, b: number, c: number) => any;
    readonly session_recomputeDecoder: (a: number) => any;
    readonly session_reset: (a: number) => any;
    readonly session_runToEnd: (a: number) => any;
    readonly session_setAblation: (a: number, b: number, c: number) => any;
    readonly session_setFocus: (a: number, b: number, c: number, d: number, e: number) => [number, number];
    readonly session_setSampling: (a: number, b: number, c: number, d: number, e: number, f: number) => [number, number];
    readonly session_start: (a: number, b: number, c: number) => any;
    readonly session_step: (a: number) => any;
    readonly session_translate: (a: number, b: number, c: number) => any;
    readonly session_twin: (a: number) => number;
    readonly start: () => void;
    readonly weightsfile_fromBytes: (a: number, b: number) => [number, number, number];
    readonly weightsfile_length: (a: number) => number;
    readonly weightsfile_new: (a: number) => [number, number, number];
    readonly weightsfile_push: (a: number, b: number, c: number) => [number, number];
    readonly wasm_bindgen__convert__closures_____invoke__h0531fd743f4bc429: (a: number, b: number, c: any) => [number, number];
    readonly wasm_bindgen__convert__closures_____invoke__h8c223939539c9d7c: (a: number, b: number, c: any, d: any) => void;
    readonly wasm_bindgen__convert__closures_____invoke__hbbea176ac307396e: (a: number, b: number, c: any) => [number, number];
    readonly __wbindgen_malloc: (a: number, b: number) => number;
    readonly __wbindgen_realloc: (a: number, b: number, c: number, d: number) => number;
    readonly __wbindgen_free: (a: number, b: number, c: number) => void;
    readonly __wbindgen_exn_store: (a: number) => void;
    readonly __externref_table_alloc: () => number;
    readonly __wbindgen_externrefs: WebAssembly.Table;
    readonly __wbindgen_destroy_closure: (a: number, b: number) => void;
    readonly __externref_table_dealloc: (a: number) => void;
    readonly __externref_drop_slice: (a: number, b: number) => void;
    readonly __wbindgen_start: () => void;
}

export type SyncInitInput = BufferSource | WebAssembly.Module;

/**
 * Instantiates the given `module`, which can either be bytes or
 * a precompiled `WebAssembly.Module`.
 *
 * @param {{ module: SyncInitInput }} module - Passing `SyncInitInput` directly is deprecated.
 *
 * @returns {InitOutput}
 */
export function initSync(module: { module: SyncInitInput } | SyncInitInput): InitOutput;

/**
 * If `module_or_path` is {RequestInfo} or {URL}, makes a request and
 * for everything else, calls `WebAssembly.instantiate` directly.
 *
 * @param {{ module_or_path: InitInput | Promise<InitInput> }} module_or_path - Passing `InitInput` directly is deprecated.
 *
 * @returns {Promise<InitOutput>}
 */
export default function __wbg_init (module_or_path?: { module_or_path: InitInput | Promise<InitInput> } | InitInput | Promise<InitInput>): Promise<InitOutput>;
