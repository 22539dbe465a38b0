/* @ts-self-types="./attnscope.d.ts" */

/**
 * A model, its decoding session and the backend it runs on, for the worker.
 */
export class Session {
    static __wrap(ptr) {
        const obj = Object.create(Session.prototype);
        obj.__wbg_ptr = ptr;
        SessionFinalization.register(obj, obj.__wbg_ptr, obj);
        return obj;
    }
    __destroy_into_raw() {
        const ptr = this.__wbg_ptr;
        this.__wbg_ptr = 0;
        SessionFinalization.unregister(this);
        return ptr;
    }
    free() {
        const ptr = this.__destroy_into_raw();
        wasm.__wbg_session_free(ptr, 0);
    }
    /**
     * The current output decoded again with these heads off, and each original token's
     * log-probability with and without them (teacher-forced). The session is unchanged.
     * @param {string} spec
     * @returns {Promise<any>}
     */
    ablate(spec) {
        const ptr0 = passStringToWasm0(spec, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
        const len0 = WASM_VECTOR_LEN;
        const ret = wasm.session_ablate(this.__wbg_ptr, ptr0, len0);
        return ret;
    }
    /**
     * The summaries of the trace so far (the mean and max over heads, the encoder rollout, the
     * source attribution), computed on the host from the trace the last answer carried.
     * @returns {any}
     */
    analysis() {
        const ret = wasm.session_analysis(this.__wbg_ptr);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return takeFromExternrefTable0(ret[0]);
    }
    /**
     * The trace so far and the focused head's stages: `{trace, stages}`. The summaries the page
     * draws beside them come from [`Session::analysis`], asked for after the answer has gone
     * out, so that the first heatmap does not wait for them (or for their bytes to cross).
     * @returns {Promise<any>}
     */
    answer() {
        const ret = wasm.session_answer(this.__wbg_ptr);
        return ret;
    }
    /**
     * Occlusion attribution of decoder row `row`, beside its attention and rollout.
     * @param {number} row
     * @returns {Promise<any>}
     */
    attribution(row) {
        const ret = wasm.session_attribution(this.__wbg_ptr, row);
        return ret;
    }
    /**
     * Undo the last step.
     * @returns {Promise<any>}
     */
    back() {
        const ret = wasm.session_back(this.__wbg_ptr);
        return ret;
    }
    /**
     * `"webgpu"` or `"cpu"`.
     * @returns {string}
     */
    backend() {
        let deferred1_0;
        let deferred1_1;
        try {
            const ret = wasm.session_backend(this.__wbg_ptr);
            deferred1_0 = ret[0];
            deferred1_1 = ret[1];
            return getStringFromWasm0(ret[0], ret[1]);
        } finally {
            wasm.__wbindgen_free(deferred1_0, deferred1_1, 1);
        }
    }
    /**
     * Beam search (width 1 to [`crate::session::MAX_BEAM_WIDTH`], length penalty α) over the
     * current source: the tree and the final ranking. The current sentence stays as it is.
     * @param {number} width
     * @param {number} length_penalty
     * @returns {Promise<any>}
     */
    beam(width, length_penalty) {
        const ret = wasm.session_beam(this.__wbg_ptr, width, length_penalty);
        return ret;
    }
    /**
     * The model's config as a camelCase object.
     * @returns {any}
     */
    config() {
        const ret = wasm.session_config(this.__wbg_ptr);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return takeFromExternrefTable0(ret[0]);
    }
    /**
     * Load a model on the CPU from weights streamed into this module ([`WeightsFile`]), so
     * that they are never held in JS as well, straight into packed weights: the file's
     * tensors are taken from it (it is empty afterwards) and each freed once used.
     * @param {Uint8Array | number[]} config
     * @param {WeightsFile} weights
     * @param {Uint8Array | number[]} src_tokenizer
     * @param {Uint8Array | number[]} tgt_tokenizer
     * @returns {Session}
     */
    static createCpu(config, weights, src_tokenizer, tgt_tokenizer) {
        _assertClass(weights, WeightsFile);
        let ptr0, len0, ptr1, len1, ptr2, len2;
        try {
            ptr0 = passArray8ToWasm0(config, wasm.__wbindgen_malloc);
            len0 = WASM_VECTOR_LEN;
            ptr1 = passArray8ToWasm0(src_tokenizer, wasm.__wbindgen_malloc);
            len1 = WASM_VECTOR_LEN;
            ptr2 = passArray8ToWasm0(tgt_tokenizer, wasm.__wbindgen_malloc);
            len2 = WASM_VECTOR_LEN;
        } catch (e) {
            if (ptr2) { wasm.__wbindgen_free(ptr2, len2 * 1, 1); }
            if (ptr1) { wasm.__wbindgen_free(ptr1, len1 * 1, 1); }
            if (ptr0) { wasm.__wbindgen_free(ptr0, len0 * 1, 1); }
            throw e;
        }
        const ret = wasm.session_createCpu(ptr0, len0, weights.__wbg_ptr, ptr1, len1, ptr2, len2);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return Session.__wrap(ret[0]);
    }
    /**
     * Load a model from its four files onto `"webgpu"` or `"cpu"` (the worker asks
     * `chooseBackend` first). Bad files give a readable error, never a crash.
     * @param {Uint8Array | number[]} config
     * @param {Uint8Array | number[]} weights
     * @param {Uint8Array | number[]} src_tokenizer
     * @param {Uint8Array | number[]} tgt_tokenizer
     * @param {string} backend
     * @returns {Promise<Session>}
     */
    static create(config, weights, src_tokenizer, tgt_tokenizer, backend) {
        let ptr0, len0, ptr1, len1, ptr2, len2, ptr3, len3, ptr4, len4;
        try {
            ptr0 = passArray8ToWasm0(config, wasm.__wbindgen_malloc);
            len0 = WASM_VECTOR_LEN;
            ptr1 = passArray8ToWasm0(weights, wasm.__wbindgen_malloc);
            len1 = WASM_VECTOR_LEN;
            ptr2 = passArray8ToWasm0(src_tokenizer, wasm.__wbindgen_malloc);
            len2 = WASM_VECTOR_LEN;
            ptr3 = passArray8ToWasm0(tgt_tokenizer, wasm.__wbindgen_malloc);
            len3 = WASM_VECTOR_LEN;
            ptr4 = passStringToWasm0(backend, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
            len4 = WASM_VECTOR_LEN;
        } catch (e) {
            if (ptr4) { wasm.__wbindgen_free(ptr4, len4 * 1, 1); }
            if (ptr3) { wasm.__wbindgen_free(ptr3, len3 * 1, 1); }
            if (ptr2) { wasm.__wbindgen_free(ptr2, len2 * 1, 1); }
            if (ptr1) { wasm.__wbindgen_free(ptr1, len1 * 1, 1); }
            if (ptr0) { wasm.__wbindgen_free(ptr0, len0 * 1, 1); }
            throw e;
        }
        const ret = wasm.session_create(ptr0, len0, ptr1, len1, ptr2, len2, ptr3, len3, ptr4, len4);
        return ret;
    }
    /**
     * Replace the output with these target ids (a beam hypothesis), then decode to the end if
     * asked.
     * @param {Uint32Array | number[]} ids
     * @param {boolean} continue_to_end
     * @returns {Promise<any>}
     */
    forceIds(ids, continue_to_end) {
        const val2 = +continue_to_end;
        const ptr0 = passArray32ToWasm0(ids, wasm.__wbindgen_malloc);
        const len0 = WASM_VECTOR_LEN;
        const ret = wasm.session_forceIds(this.__wbg_ptr, ptr0, len0, val2);
        return ret;
    }
    /**
     * Keep `index` steps, force token `id` as the next, and decode to the end if asked.
     * @param {number} index
     * @param {number} id
     * @param {boolean} continue_to_end
     * @returns {Promise<any>}
     */
    force(index, id, continue_to_end) {
        const ret = wasm.session_force(this.__wbg_ptr, index, id, continue_to_end);
        return ret;
    }
    /**
     * Every head's importance for the current output: the fall of its total log-probability
     * when that head alone is off (one teacher-forced pass per head).
     * @returns {Promise<any>}
     */
    importance() {
        const ret = wasm.session_importance(this.__wbg_ptr);
        return ret;
    }
    /**
     * One token's journey through one layer: `stack` is `encoder` or `decoder`, `position` a
     * source position or a decoded decoder row (README, "Journey JSON").
     * @param {string} stack
     * @param {number} layer
     * @param {number} position
     * @returns {Promise<any>}
     */
    inspect(stack, layer, position) {
        const val2 = +layer;
        const val3 = +position;
        const ptr0 = passStringToWasm0(stack, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
        const len0 = WASM_VECTOR_LEN;
        const ret = wasm.session_inspect(this.__wbg_ptr, ptr0, len0, val2, val3);
        return ret;
    }
    /**
     * The target-language codes a multi-target model reads at the start of the text
     * (`>>cmn_Hans<<`, …); empty for a model with one target language.
     * @returns {string[]}
     */
    languageCodes() {
        const ret = wasm.session_languageCodes(this.__wbg_ptr);
        var v1 = getArrayJsValueFromWasm0(ret[0], ret[1]);
        wasm.__wbindgen_free(ret[0], ret[1] * 4, 4);
        return v1;
    }
    /**
     * Put a training snapshot's weights (`timeline/step-*.safetensors` of the same model) in
     * place of the current ones and decode the current sentence again with them.
     * @param {Uint8Array | number[]} weights
     * @returns {Promise<any>}
     */
    loadSnapshot(weights) {
        const ptr0 = passArray8ToWasm0(weights, wasm.__wbindgen_malloc);
        const len0 = WASM_VECTOR_LEN;
        const ret = wasm.session_loadSnapshot(this.__wbg_ptr, ptr0, len0);
        return ret;
    }
    /**
     * Two (or more) sentences as one padded batch through the encoder: the padding mask at work.
     * @param {string[]} texts
     * @returns {Promise<any>}
     */
    paddedBatch(texts) {
        const ptr0 = passArrayJsValueToWasm0(texts, wasm.__wbindgen_malloc);
        const len0 = WASM_VECTOR_LEN;
        const ret = wasm.session_paddedBatch(this.__wbg_ptr, ptr0, len0);
        return ret;
    }
    /**
     * The positional-encoding table `[maxLen, dModel]` and PE(t)·PE(t+Δ) for a few t.
     * @returns {any}
     */
    positionalEncoding() {
        const ret = wasm.session_positionalEncoding(this.__wbg_ptr);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return takeFromExternrefTable0(ret[0]);
    }
    /**
     * Force the output to start with `prefix` (target text), then decode to the end.
     * @param {string} prefix
     * @returns {Promise<any>}
     */
    prefix(prefix) {
        const ptr0 = passStringToWasm0(prefix, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
        const len0 = WASM_VECTOR_LEN;
        const ret = wasm.session_prefix(this.__wbg_ptr, ptr0, len0);
        return ret;
    }
    /**
     * Re-run the decoder over the whole output so far at once, without the cache, reading every
     * attention matrix and the logits back (the benchmark's "full re-decode", to weigh a cached
     * step against). Returns the number of decoder rows.
     * @returns {Promise<number>}
     */
    recomputeDecoder() {
        const ret = wasm.session_recomputeDecoder(this.__wbg_ptr);
        return ret;
    }
    /**
     * Back to the start token.
     * @returns {Promise<any>}
     */
    reset() {
        const ret = wasm.session_reset(this.__wbg_ptr);
        return ret;
    }
    /**
     * Decode until the end token.
     * @returns {Promise<any>}
     */
    runToEnd() {
        const ret = wasm.session_runToEnd(this.__wbg_ptr);
        return ret;
    }
    /**
     * Decode from now on with these heads off (`KIND:LAYER:HEAD,…`; empty: every head on), and
     * decode the current sentence again with them; `null` when there is no sentence yet.
     * @param {string} spec
     * @returns {Promise<any>}
     */
    setAblation(spec) {
        const ptr0 = passStringToWasm0(spec, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
        const len0 = WASM_VECTOR_LEN;
        const ret = wasm.session_setAblation(this.__wbg_ptr, ptr0, len0);
        return ret;
    }
    /**
     * Which head's stages every answer carries. `kind`: encoderSelf, decoderSelf, cross.
     * @param {string} kind
     * @param {number} layer
     * @param {number} head
     */
    setFocus(kind, layer, head) {
        const val2 = +layer;
        const val3 = +head;
        const ptr0 = passStringToWasm0(kind, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
        const len0 = WASM_VECTOR_LEN;
        const ret = wasm.session_setFocus(this.__wbg_ptr, ptr0, len0, val2, val3);
        if (ret[1]) {
            throw takeFromExternrefTable0(ret[0]);
        }
    }
    /**
     * `mode` is [`GREEDY`] or [`SAMPLE`] (with temperature, top-k and seed).
     * @param {string} mode
     * @param {number} temperature
     * @param {number} top_k
     * @param {number} seed
     */
    setSampling(mode, temperature, top_k, seed) {
        const val2 = +temperature;
        const val3 = +top_k;
        const val4 = +seed;
        const ptr0 = passStringToWasm0(mode, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
        const len0 = WASM_VECTOR_LEN;
        const ret = wasm.session_setSampling(this.__wbg_ptr, ptr0, len0, val2, val3, val4);
        if (ret[1]) {
            throw takeFromExternrefTable0(ret[0]);
        }
    }
    /**
     * Encode a sentence, ready to step.
     * @param {string} text
     * @returns {Promise<any>}
     */
    start(text) {
        const ptr0 = passStringToWasm0(text, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
        const len0 = WASM_VECTOR_LEN;
        const ret = wasm.session_start(this.__wbg_ptr, ptr0, len0);
        return ret;
    }
    /**
     * Decode one more token.
     * @returns {Promise<any>}
     */
    step() {
        const ret = wasm.session_step(this.__wbg_ptr);
        return ret;
    }
    /**
     * Encode a sentence and decode it to the end.
     * @param {string} text
     * @returns {Promise<any>}
     */
    translate(text) {
        const ptr0 = passStringToWasm0(text, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
        const len0 = WASM_VECTOR_LEN;
        const ret = wasm.session_translate(this.__wbg_ptr, ptr0, len0);
        return ret;
    }
    /**
     * A second session over the same weights, sharing them (the comparison view's): every head
     * on, no sentence.
     * @returns {Session}
     */
    twin() {
        const ret = wasm.session_twin(this.__wbg_ptr);
        return Session.__wrap(ret);
    }
}
if (Symbol.dispose) Session.prototype[Symbol.dispose] = Session.prototype.free;

/**
 * A weights file, filled chunk by chunk to the size announced when it was made, and split into
 * its tensors as they arrive ([`WeightsStream`]): `Session.createCpu` frees each one as it is
 * used, so the module never holds the whole file beside the model it becomes.
 */
export class WeightsFile {
    static __wrap(ptr) {
        const obj = Object.create(WeightsFile.prototype);
        obj.__wbg_ptr = ptr;
        WeightsFileFinalization.register(obj, obj.__wbg_ptr, obj);
        return obj;
    }
    __destroy_into_raw() {
        const ptr = this.__wbg_ptr;
        this.__wbg_ptr = 0;
        WeightsFileFinalization.unregister(this);
        return ptr;
    }
    free() {
        const ptr = this.__destroy_into_raw();
        wasm.__wbg_weightsfile_free(ptr, 0);
    }
    /**
     * The file made of one buffer that is already whole (a shipped model's cached file).
     * @param {Uint8Array | number[]} bytes
     * @returns {WeightsFile}
     */
    static fromBytes(bytes) {
        const ptr0 = passArray8ToWasm0(bytes, wasm.__wbindgen_malloc);
        const len0 = WASM_VECTOR_LEN;
        const ret = wasm.weightsfile_fromBytes(ptr0, len0);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return WeightsFile.__wrap(ret[0]);
    }
    /**
     * The bytes read so far.
     * @returns {number}
     */
    get length() {
        const ret = wasm.weightsfile_length(this.__wbg_ptr);
        return ret;
    }
    /**
     * An empty file that will hold `size` bytes (that much memory is reserved and given back
     * now, so that a file the module cannot hold is refused before any chunk is read).
     * @param {number} size
     */
    constructor(size) {
        const ret = wasm.weightsfile_new(size);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        this.__wbg_ptr = ret[0];
        WeightsFileFinalization.register(this, this.__wbg_ptr, this);
        return this;
    }
    /**
     * Append the next chunk; more than the announced size, or a header that is not a
     * safetensors file's, is refused.
     * @param {Uint8Array | number[]} chunk
     */
    push(chunk) {
        const ptr0 = passArray8ToWasm0(chunk, wasm.__wbindgen_malloc);
        const len0 = WASM_VECTOR_LEN;
        const ret = wasm.weightsfile_push(this.__wbg_ptr, ptr0, len0);
        if (ret[1]) {
            throw takeFromExternrefTable0(ret[0]);
        }
    }
}
if (Symbol.dispose) WeightsFile.prototype[Symbol.dispose] = WeightsFile.prototype.free;

/**
 * The kinds of attention, `["encoderSelf", "decoderSelf", "cross"]`: each [`AttentionKind`] by
 * the name its JSON gives it, in the order the page lists them.
 * @returns {any}
 */
export function attentionKinds() {
    const ret = wasm.attentionKinds();
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return takeFromExternrefTable0(ret[0]);
}

/**
 * The backend preferences, `["auto", "webgpu", "cpu"]` ([`BACKENDS`]): the page's choices.
 * @returns {any}
 */
export function backends() {
    const ret = wasm.backends();
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return takeFromExternrefTable0(ret[0]);
}

/**
 * Refuse a MarianMT folder too big for the module (`error.tooBig`) from its small files
 * (`config.json`, `vocab.json`, `generation_config.json`) and its weights file's size, before
 * the weights are read: the import holds the checkpoint's file, every parameter as F32 and the
 * converted file at once.
 * @param {string[]} names
 * @param {Uint8Array[]} files
 * @param {number} weights_bytes
 */
export function checkMarianSize(names, files, weights_bytes) {
    const val3 = +weights_bytes;
    let ptr0, len0, ptr1, len1;
    try {
        ptr0 = passArrayJsValueToWasm0(names, wasm.__wbindgen_malloc);
        len0 = WASM_VECTOR_LEN;
        ptr1 = passArrayJsValueToWasm0(files, wasm.__wbindgen_malloc);
        len1 = WASM_VECTOR_LEN;
    } catch (e) {
        if (ptr1) { wasm.__externref_drop_slice(ptr1, len1); wasm.__wbindgen_free(ptr1, len1 * 4, 4); }
        if (ptr0) { wasm.__externref_drop_slice(ptr0, len0); wasm.__wbindgen_free(ptr0, len0 * 4, 4); }
        throw e;
    }
    const ret = wasm.checkMarianSize(ptr0, len0, ptr1, len1, val3);
    if (ret[1]) {
        throw takeFromExternrefTable0(ret[0]);
    }
}

/**
 * Refuse a model whose config (`config.json`'s bytes) and weights file size (`weights_bytes`)
 * need more memory than the module can address (`error.tooBig`, with the sizes), before
 * anything is read; `copies`: more F32 copies held beside (1 for an import).
 * @param {Uint8Array | number[]} config
 * @param {number} weights_bytes
 * @param {number} copies
 */
export function checkModelSize(config, weights_bytes, copies) {
    const val2 = +weights_bytes;
    const val3 = +copies;
    const ptr0 = passArray8ToWasm0(config, wasm.__wbindgen_malloc);
    const len0 = WASM_VECTOR_LEN;
    const ret = wasm.checkModelSize(ptr0, len0, val2, val3);
    if (ret[1]) {
        throw takeFromExternrefTable0(ret[0]);
    }
}

/**
 * The backend policy: `cpu` → the CPU; `webgpu` → WebGPU when the browser has any adapter;
 * `auto` → WebGPU only with a hardware adapter, since a software fallback adapter
 * (SwiftShader) emulates the GPU on the CPU and is slower than the CPU module.
 * Returns `{backend, note}`; `note` is `null` or `{key, params}` with `key` one of
 * `backend.webgpuNotAvailable` (`{reason}`, preference `webgpu`), `backend.webgpuUnavailable`
 * (`{reason}`, preference `auto`) and `backend.softwareFallback` (`{}`).
 * @param {string} preference
 * @returns {Promise<any>}
 */
export function chooseBackend(preference) {
    const ptr0 = passStringToWasm0(preference, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
    const len0 = WASM_VECTOR_LEN;
    const ret = wasm.chooseBackend(ptr0, len0);
    return ret;
}

/**
 * The decodings, `["greedy", "sample", "beam"]` ([`DECODINGS`]).
 * @returns {any}
 */
export function decodings() {
    const ret = wasm.decodings();
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return takeFromExternrefTable0(ret[0]);
}

/**
 * The head the page looks at first, `{kind, layer, head}` ([`Focus::DEFAULT`]).
 * @returns {any}
 */
export function defaultFocus() {
    const ret = wasm.defaultFocus();
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return takeFromExternrefTable0(ret[0]);
}

/**
 * Convert the folder `folder` (its name, or undefined for loose files) whose files are
 * `names[i]` ↔ `files[i]`. Answers `{ config, weights, srcTokenizer, tgtTokenizer }` (bytes,
 * as `Session.create` takes them; the worker streams the weights into a `WeightsFile` for
 * `Session.createCpu`) and `notes` (what the import did not apply, in English).
 * @param {string | null | undefined} folder
 * @param {string[]} names
 * @param {Uint8Array[]} files
 * @returns {any}
 */
export function importMarian(folder, names, files) {
    let ptr0, len0, ptr1, len1, ptr2, len2;
    try {
        ptr0 = isLikeNone(folder) ? 0 : passStringToWasm0(folder, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
        len0 = WASM_VECTOR_LEN;
        ptr1 = passArrayJsValueToWasm0(names, wasm.__wbindgen_malloc);
        len1 = WASM_VECTOR_LEN;
        ptr2 = passArrayJsValueToWasm0(files, wasm.__wbindgen_malloc);
        len2 = WASM_VECTOR_LEN;
    } catch (e) {
        if (ptr2) { wasm.__externref_drop_slice(ptr2, len2); wasm.__wbindgen_free(ptr2, len2 * 4, 4); }
        if (ptr1) { wasm.__externref_drop_slice(ptr1, len1); wasm.__wbindgen_free(ptr1, len1 * 4, 4); }
        if (ptr0) { wasm.__wbindgen_free(ptr0, len0 * 1, 1); }
        throw e;
    }
    const ret = wasm.importMarian(ptr0, len0, ptr1, len1, ptr2, len2);
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return takeFromExternrefTable0(ret[0]);
}

/**
 * The files of a Hugging Face MarianMT folder that `importMarian` reads: `{required,
 * optional, weights}` (weights: the accepted files, the first found is used).
 * @returns {any}
 */
export function marianFileNames() {
    const ret = wasm.marianFileNames();
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return takeFromExternrefTable0(ret[0]);
}

/**
 * The widest beam [`crate::session::Session::beam`] accepts ([`MAX_BEAM_WIDTH`]).
 * @returns {number}
 */
export function maxBeamWidth() {
    const ret = wasm.maxBeamWidth();
    return ret >>> 0;
}

/**
 * The file names of a model folder: `{config, weights, srcTokenizer, tgtTokenizer}`.
 * @returns {any}
 */
export function modelFileNames() {
    const ret = wasm.modelFileNames();
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return takeFromExternrefTable0(ret[0]);
}

/**
 * Run the static constructors once and install the panic hook, so a Rust panic reaches the
 * console with its message.
 */
export function start() {
    wasm.start();
}
function __wbg_get_imports() {
    const import0 = {
        __proto__: null,
        __wbg_Error_208446807d0d1e30: function(arg0, arg1) {
            const ret = Error(getStringFromWasm0(arg0, arg1));
            return ret;
        },
        __wbg_Number_ff192a72a0dcdf6d: function(arg0) {
            const ret = Number(arg0);
            return ret;
        },
        __wbg_String_8564e559799eccda: function(arg0, arg1) {
            const ret = String(arg1);
            const ptr1 = passStringToWasm0(ret, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
            const len1 = WASM_VECTOR_LEN;
            getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 1, len1, true);
            getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 0, ptr1, true);
        },
        __wbg___wbindgen_is_function_741ff2bb612836f5: function(arg0) {
            const ret = typeof(arg0) === 'function';
            return ret;
        },
        __wbg___wbindgen_is_null_c22311b1cc228e3a: function(arg0) {
            const ret = arg0 === null;
            return ret;
        },
        __wbg___wbindgen_is_string_fc456fee5d3317de: function(arg0) {
            const ret = typeof(arg0) === 'string';
            return ret;
        },
        __wbg___wbindgen_is_undefined_be5b34249ff1fc15: function(arg0) {
            const ret = arg0 === undefined;
            return ret;
        },
        __wbg___wbindgen_string_get_7ce8eee7fd327545: function(arg0, arg1) {
            const obj = arg1;
            const ret = typeof(obj) === 'string' ? obj : undefined;
            var ptr1 = isLikeNone(ret) ? 0 : passStringToWasm0(ret, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
            var len1 = WASM_VECTOR_LEN;
            getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 1, len1, true);
            getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 0, ptr1, true);
        },
        __wbg___wbindgen_throw_4c88d8bf264fd984: function(arg0, arg1) {
            throw new Error(getStringFromWasm0(arg0, arg1));
        },
        __wbg__wbg_cb_unref_09736879a3f67559: function(arg0) {
            arg0._wbg_cb_unref();
        },
        __wbg_call_a410eb4b59ed5965: function() { return handleError(function (arg0, arg1, arg2) {
            const ret = arg0.call(arg1, arg2);
            return ret;
        }, arguments); },
        __wbg_error_757e9472f8410341: function(arg0, arg1) {
            let deferred0_0;
            let deferred0_1;
            try {
                deferred0_0 = arg0;
                deferred0_1 = arg1;
                console.error(getStringFromWasm0(arg0, arg1));
            } finally {
                wasm.__wbindgen_free(deferred0_0, deferred0_1, 1);
            }
        },
        __wbg_getRandomValues_5d8c030b527203a6: function() { return handleError(function (arg0, arg1) {
            globalThis.crypto.getRandomValues(getArrayU8FromWasm0(arg0, arg1));
        }, arguments); },
        __wbg_getRandomValues_8b6f1f663e6f188d: function() { return handleError(function (arg0, arg1) {
            globalThis.crypto.getRandomValues(getArrayU8FromWasm0(arg0, arg1));
        }, arguments); },
        __wbg_gpu_22e0c726d5e29b68: function(arg0) {
            const ret = arg0.gpu;
            return ret;
        },
        __wbg_gpu_50cec72d79ce9e81: function(arg0) {
            const ret = arg0.gpu;
            return ret;
        },
        __wbg_info_517c8b17ca2a8817: function(arg0) {
            const ret = arg0.info;
            return ret;
        },
        __wbg_instanceof_Error_74e3cca0c4a69161: function(arg0) {
            let result;
            try {
                result = arg0 instanceof Error;
            } catch (_) {
                result = false;
            }
            const ret = result;
            return ret;
        },
        __wbg_instanceof_Window_5cf453f5639aa1a2: function(arg0) {
            let result;
            try {
                result = arg0 instanceof Window;
            } catch (_) {
                result = false;
            }
            const ret = result;
            return ret;
        },
        __wbg_instanceof_WorkerGlobalScope_a8f1cd8c19b6daec: function(arg0) {
            let result;
            try {
                result = arg0 instanceof WorkerGlobalScope;
            } catch (_) {
                result = false;
            }
            const ret = result;
            return ret;
        },
        __wbg_isFallbackAdapter_715f8ba1168c6317: function(arg0) {
            const ret = arg0.isFallbackAdapter;
            return ret;
        },
        __wbg_length_186163212ffe79c3: function(arg0) {
            const ret = arg0.length;
            return ret;
        },
        __wbg_message_43d8c8f1d543a349: function(arg0) {
            const ret = arg0.message;
            return ret;
        },
        __wbg_navigator_9641ab32fa612dd1: function(arg0) {
            const ret = arg0.navigator;
            return ret;
        },
        __wbg_navigator_c17f443a6fe5d38d: function(arg0) {
            const ret = arg0.navigator;
            return ret;
        },
        __wbg_new_37eb45aaf5eeb820: function() {
            const ret = new Array();
            return ret;
        },
        __wbg_new_7075786089b89c5e: function() {
            const ret = new Map();
            return ret;
        },
        __wbg_new_bb74001155cb8ca8: function() {
            const ret = new Error();
            return ret;
        },
        __wbg_new_cd4348290afae586: function() {
            const ret = new Object();
            return ret;
        },
        __wbg_new_from_slice_b8daf545a41c6aa0: function(arg0, arg1) {
            const ret = new Uint8Array(getArrayU8FromWasm0(arg0, arg1));
            return ret;
        },
        __wbg_new_typed_e09da9dae6ee5935: function(arg0, arg1) {
            try {
                var state0 = {a: arg0, b: arg1};
                var cb0 = (arg0, arg1) => {
                    const a = state0.a;
                    state0.a = 0;
                    try {
                        return wasm_bindgen__convert__closures_____invoke__h8c223939539c9d7c(a, state0.b, arg0, arg1);
                    } finally {
                        state0.a = a;
                    }
                };
                const ret = new Promise(cb0);
                return ret;
            } finally {
                state0.a = 0;
            }
        },
        __wbg_prototypesetcall_13162965d1fe7aa3: function(arg0, arg1, arg2) {
            Uint8Array.prototype.set.call(getArrayU8FromWasm0(arg0, arg1), arg2);
        },
        __wbg_push_c9f4893fc209f768: function(arg0, arg1) {
            const ret = arg0.push(arg1);
            return ret;
        },
        __wbg_queueMicrotask_1e8503a8a690f0a3: function(arg0) {
            const ret = arg0.queueMicrotask;
            return ret;
        },
        __wbg_queueMicrotask_4a1a4d8dd332373b: function(arg0) {
            queueMicrotask(arg0);
        },
        __wbg_requestAdapter_d408bfb496f84997: function(arg0) {
            const ret = arg0.requestAdapter();
            return ret;
        },
        __wbg_resolve_dbf78ab4942478b0: function(arg0) {
            const ret = Promise.resolve(arg0);
            return ret;
        },
        __wbg_session_new: function(arg0) {
            const ret = Session.__wrap(arg0);
            return ret;
        },
        __wbg_set_2793479888329cb6: function() { return handleError(function (arg0, arg1, arg2) {
            const ret = Reflect.set(arg0, arg1, arg2);
            return ret;
        }, arguments); },
        __wbg_set_8282f7e0d2d01336: function(arg0, arg1, arg2) {
            const ret = arg0.set(arg1, arg2);
            return ret;
        },
        __wbg_set_d2d33b52458e984a: function(arg0, arg1, arg2) {
            arg0[arg1 >>> 0] = arg2;
        },
        __wbg_set_e4b9a833d288759a: function(arg0, arg1, arg2) {
            arg0[arg1] = arg2;
        },
        __wbg_slice_755033ec72548d4a: function(arg0, arg1, arg2) {
            const ret = arg0.slice(arg1 >>> 0, arg2 >>> 0);
            return ret;
        },
        __wbg_stack_575c4e0918581b9c: function(arg0, arg1) {
            const ret = arg1.stack;
            const ptr1 = passStringToWasm0(ret, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
            const len1 = WASM_VECTOR_LEN;
            getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 1, len1, true);
            getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 0, ptr1, true);
        },
        __wbg_static_accessor_GLOBAL_THIS_003ee833af9699fc: function() {
            const ret = typeof globalThis === 'undefined' ? undefined : globalThis;
            return isLikeNone(ret) ? 0 : addToExternrefTable0(ret);
        },
        __wbg_static_accessor_GLOBAL_e4293fb22cbe77da: function() {
            const ret = typeof global === 'undefined' ? undefined : global;
            return isLikeNone(ret) ? 0 : addToExternrefTable0(ret);
        },
        __wbg_static_accessor_SELF_53bb20457401453d: function() {
            const ret = typeof self === 'undefined' ? undefined : self;
            return isLikeNone(ret) ? 0 : addToExternrefTable0(ret);
        },
        __wbg_static_accessor_WINDOW_b5e0810bfecb7feb: function() {
            const ret = typeof window === 'undefined' ? undefined : window;
            return isLikeNone(ret) ? 0 : addToExternrefTable0(ret);
        },
        __wbg_then_656f253a5dd7d8ea: function(arg0, arg1, arg2) {
            const ret = arg0.then(arg1, arg2);
            return ret;
        },
        __wbg_then_e3f7f2d365708be8: function(arg0, arg1) {
            const ret = arg0.then(arg1);
            return ret;
        },
        __wbindgen_generic_0000000000000001: function(arg0, arg1) {
            // Cast intrinsic for `Closure(Closure { owned: true, function: Function { arguments: [Externref], shim_idx: 1846, ret: Result(Unit), inner_ret: Some(Result(Unit)) }, mutable: true }) -> Externref`.
            const ret = makeMutClosure(arg0, arg1, wasm_bindgen__convert__closures_____invoke__h0531fd743f4bc429);
            return ret;
        },
        __wbindgen_generic_0000000000000002: function(arg0, arg1) {
            // Cast intrinsic for `Closure(Closure { owned: true, function: Function { arguments: [NamedExternref("any")], shim_idx: 474, ret: Result(Unit), inner_ret: Some(Result(Unit)) }, mutable: true }) -> Externref`.
            const ret = makeMutClosure(arg0, arg1, wasm_bindgen__convert__closures_____invoke__hbbea176ac307396e);
            return ret;
        },
        __wbindgen_generic_0000000000000003: function(arg0) {
            // Cast intrinsic for `F64 -> Externref`.
            const ret = arg0;
            return ret;
        },
        __wbindgen_generic_0000000000000004: function(arg0) {
            // Cast intrinsic for `I64 -> Externref`.
            const ret = arg0;
            return ret;
        },
        __wbindgen_generic_0000000000000005: function(arg0, arg1) {
            // Cast intrinsic for `Ref(Slice(U8)) -> NamedExternref("Uint8Array")`.
            const ret = getArrayU8FromWasm0(arg0, arg1);
            return ret;
        },
        __wbindgen_generic_0000000000000006: function(arg0, arg1) {
            // Cast intrinsic for `Ref(String) -> Externref`.
            const ret = getStringFromWasm0(arg0, arg1);
            return ret;
        },
        __wbindgen_generic_0000000000000007: function(arg0) {
            // Cast intrinsic for `U64 -> Externref`.
            const ret = BigInt.asUintN(64, arg0);
            return ret;
        },
        __wbindgen_init_externref_table: function() {
            const table = wasm.__wbindgen_externrefs;
            table.set(0, undefined);
            table.set(1024, undefined);
            table.set(1025, null);
            table.set(1026, true);
            table.set(1027, false);
        },
    };
    return {
        __proto__: null,
        "./attnscope_bg.js": import0,
    };
}

function wasm_bindgen__convert__closures_____invoke__h0531fd743f4bc429(arg0, arg1, arg2) {
    const ret = wasm.wasm_bindgen__convert__closures_____invoke__h0531fd743f4bc429(arg0, arg1, arg2);
    if (ret[1]) {
        throw takeFromExternrefTable0(ret[0]);
    }
}

function wasm_bindgen__convert__closures_____invoke__hbbea176ac307396e(arg0, arg1, arg2) {
    const ret = wasm.wasm_bindgen__convert__closures_____invoke__hbbea176ac307396e(arg0, arg1, arg2);
    if (ret[1]) {
        throw takeFromExternrefTable0(ret[0]);
    }
}

function wasm_bindgen__convert__closures_____invoke__h8c223939539c9d7c(arg0, arg1, arg2, arg3) {
    wasm.wasm_bindgen__convert__closures_____invoke__h8c223939539c9d7c(arg0, arg1, arg2, arg3);
}

const SessionFinalization = (typeof FinalizationRegistry === 'undefined')
    ? { register: () => {}, unregister: () => {} }
    : new FinalizationRegistry(ptr => wasm.__wbg_session_free(ptr, 1));
const WeightsFileFinalization = (typeof FinalizationRegistry === 'undefined')
    ? { register: () => {}, unregister: () => {} }
    : new FinalizationRegistry(ptr => wasm.__wbg_weightsfile_free(ptr, 1));

function addToExternrefTable0(obj) {
    const idx = wasm.__externref_table_alloc();
    wasm.__wbindgen_externrefs.set(idx, obj);
    return idx;
}

function _assertClass(instance, klass) {
    if (!(instance instanceof klass)) {
        throw new Error(`expected instance of ${klass.name}`);
    }
}

const CLOSURE_DTORS = (typeof FinalizationRegistry === 'undefined')
    ? { register: () => {}, unregister: () => {} }
    : new FinalizationRegistry(state => wasm.__wbindgen_destroy_closure(state.a, state.b));

function getArrayJsValueFromWasm0(ptr, len) {
    ptr = ptr >>> 0;
    const mem = getDataViewMemory0();
    const result = [];
    for (let i = ptr; i < ptr + 4 * len; i += 4) {
        result.push(wasm.__wbindgen_externrefs.get(mem.getUint32(i, true)));
    }
    wasm.__externref_drop_slice(ptr, len);
    return result;
}

function getArrayU8FromWasm0(ptr, len) {
    ptr = ptr >>> 0;
    return getUint8ArrayMemory0().subarray(ptr / 1, ptr / 1 + len);
}

let cachedDataViewMemory0 = null;
function getDataViewMemory0() {
    if (cachedDataViewMemory0 === null || cachedDataViewMemory0.buffer.detached === true || (cachedDataViewMemory0.buffer.detached === undefined && cachedDataViewMemory0.buffer !== wasm.memory.buffer)) {
        cachedDataViewMemory0 = new DataView(wasm.memory.buffer);
    }
    return cachedDataViewMemory0;
}

function getStringFromWasm0(ptr, len) {
    ptr = ptr >>> 0;
    return decodeText(getUint8ArrayMemory0().subarray(ptr, ptr + len));
}

let cachedUint32ArrayMemory0 = null;
function getUint32ArrayMemory0() {
    if (cachedUint32ArrayMemory0 === null || cachedUint32ArrayMemory0.byteLength === 0) {
        cachedUint32ArrayMemory0 = new Uint32Array(wasm.memory.buffer);
    }
    return cachedUint32ArrayMemory0;
}

let cachedUint8ArrayMemory0 = null;
function getUint8ArrayMemory0() {
    if (cachedUint8ArrayMemory0 === null || cachedUint8ArrayMemory0.byteLength === 0) {
        cachedUint8ArrayMemory0 = new Uint8Array(wasm.memory.buffer);
    }
    return cachedUint8ArrayMemory0;
}

function handleError(f, args) {
    try {
        return f.apply(this, args);
    } catch (e) {
        const idx = addToExternrefTable0(e);
        wasm.__wbindgen_exn_store(idx);
    }
}

function isLikeNone(x) {
    return x === undefined || x === null;
}

function makeMutClosure(arg0, arg1, f) {
    const state = { a: arg0, b: arg1, cnt: 1 };
    const real = (...args) => {

        // First up with a closure we increment the internal reference
        // count. This ensures that the Rust closure environment won't
        // be deallocated while we're invoking it.
        state.cnt++;
        const a = state.a;
        state.a = 0;
        try {
            return f(a, state.b, ...args);
        } finally {
            state.a = a;
            real._wbg_cb_unref();
        }
    };
    real._wbg_cb_unref = () => {
        if (--state.cnt === 0) {
            wasm.__wbindgen_destroy_closure(state.a, state.b);
            state.a = 0;
            CLOSURE_DTORS.unregister(state);
        }
    };
    CLOSURE_DTORS.register(real, state, state);
    return real;
}

function passArray32ToWasm0(arg, malloc) {
    const ptr = malloc(arg.length * 4, 4) >>> 0;
    getUint32ArrayMemory0().set(arg, ptr / 4);
    WASM_VECTOR_LEN = arg.length;
    return ptr;
}

function passArray8ToWasm0(arg, malloc) {
    const ptr = malloc(arg.length * 1, 1) >>> 0;
    getUint8ArrayMemory0().set(arg, ptr / 1);
    WASM_VECTOR_LEN = arg.length;
    return ptr;
}

function passArrayJsValueToWasm0(array, malloc) {
    const ptr = malloc(array.length * 4, 4) >>> 0;
    for (let i = 0; i < array.length; i++) {
        const add = addToExternrefTable0(array[i]);
        getDataViewMemory0().setUint32(ptr + 4 * i, add, true);
    }
    WASM_VECTOR_LEN = array.length;
    return ptr;
}

function passStringToWasm0(arg, malloc, realloc) {
    if (realloc === undefined) {
        const buf = cachedTextEncoder.encode(arg);
        const ptr = malloc(buf.length, 1) >>> 0;
        getUint8ArrayMemory0().subarray(ptr, ptr + buf.length).set(buf);
        WASM_VECTOR_LEN = buf.length;
        return ptr;
    }

    let len = arg.length;
    let ptr = malloc(len, 1) >>> 0;

    const mem = getUint8ArrayMemory0();

    let offset = 0;

    for (; offset < len; offset++) {
        const code = arg.charCodeAt(offset);
        if (code > 0x7F) break;
        mem[ptr + offset] = code;
    }
    if (offset !== len) {
        if (offset !== 0) {
            arg = arg.slice(offset);
        }
        ptr = realloc(ptr, len, len = offset + arg.length * 3, 1) >>> 0;
        const view = getUint8ArrayMemory0().subarray(ptr + offset, ptr + len);
        const ret = cachedTextEncoder.encodeInto(arg, view);

        offset += ret.written;
        ptr = realloc(ptr, len, offset, 1) >>> 0;
    }

    WASM_VECTOR_LEN = offset;
    return ptr;
}

function takeFromExternrefTable0(idx) {
    const value = wasm.__wbindgen_externrefs.get(idx);
    wasm.__externref_table_dealloc(idx);
    return value;
}

let cachedTextDecoder = new TextDecoder('utf-8', { ignoreBOM: true });
cachedTextDecoder.decode();
const MAX_SAFARI_DECODE_BYTES = 2146435072;
let numBytesDecoded = 0;
function decodeText(bytes) {
    numBytesDecoded += bytes.length;
    if (numBytesDecoded >= MAX_SAFARI_DECODE_BYTES) {
        cachedTextDecoder = new TextDecoder('utf-8', { ignoreBOM: true });
        cachedTextDecoder.decode();
        numBytesDecoded = bytes.length;
    }
    return cachedTextDecoder.decode(bytes);
}

const cachedTextEncoder = new TextEncoder();

if (!('encodeInto' in cachedTextEncoder)) {
    cachedTextEncoder.encodeInto = function (arg, view) {
        const buf = cachedTextEncoder.encode(arg);
        view.set(buf);
        return {
            read: arg.length,
            written: buf.length
        };
    };
}

let WASM_VECTOR_LEN = 0;

let wasmModule, wasmInstance, wasm;
function __wbg_finalize_init(instance, module) {
    wasmInstance = instance;
    wasm = instance.exports;
    wasmModule = module;
    cachedDataViewMemory0 = null;
    cachedUint32ArrayMemory0 = null;
    cachedUint8ArrayMemory0 = null;
    wasm.__wbindgen_start();
    return wasm;
}

async function __wbg_load(module, imports) {
    if (typeof Response === 'function' && module instanceof Response) {
        if (!module.ok) {
            throw new Error(`failed to fetch Wasm: ${module.status} ${module.statusText} fetching '${module.url}'`);
        }

        if (typeof WebAssembly.instantiateStreaming === 'function') {
            try {
                return await WebAssembly.instantiateStreaming(module, imports);
            } catch (e) {
                const validResponse = expectedResponseType(module.type);

                if (validResponse && module.headers.get('Content-Type') !== 'application/wasm') {
                    console.warn("`WebAssembly.instantiateStreaming` failed because your server does not serve Wasm with `application/wasm` MIME type. Falling back to `WebAssembly.instantiate` which is slower. Original error:\n", e);

                } else { throw e; }
            }
        }

        const bytes = await module.arrayBuffer();
        return await WebAssembly.instantiate(bytes, imports);
    } else {
        const instance = await WebAssembly.instantiate(module, imports);

        if (instance instanceof WebAssembly.Instance) {
            return { instance, module };
        } else {
            return instance;
        }
    }

    function expectedResponseType(type) {
        switch (type) {
            case 'basic': case 'cors': case 'default': return true;
        }
        return false;
    }
}

function initSync(module) {
    if (wasm !== undefined) return wasm;


    if (module !== undefined) {
        if (Object.getPrototypeOf(module) === Object.prototype) {
            ({module} = module)
        } else {
            console.warn('using deprecated parameters for `initSync()`; pass a single object instead')
        }
    }

    const imports = __wbg_get_imports();
    if (!(module instanceof WebAssembly.Module)) {
        module = new WebAssembly.Module(module);
    }
    const instance = new WebAssembly.Instance(module, imports);
    return __wbg_finalize_init(instance, module);
}

let __wbg_init_promise;
async function __wbg_init(module_or_path) {
    if (wasm !== undefined) return wasm;
    if (__wbg_init_promise === undefined) {
        __wbg_init_promise = __wbg_init_once(module_or_path);
        __wbg_init_promise.catch(() => { __wbg_init_promise = undefined; });
    }
    return __wbg_init_promise;
}

async function __wbg_init_once(module_or_path) {

    if (module_or_path !== undefined) {
        if (Object.getPrototypeOf(module_or_path) === Object.prototype) {
            ({module_or_path} = module_or_path)
        } else {
            console.warn('using deprecated parameters for the initialization function; pass a single object instead')
        }
    }

    if (module_or_path === undefined) {
        module_or_path = new URL('attnscope_bg.wasm', import.meta.url);
    }
    const imports = __wbg_get_imports();

    if (typeof module_or_path === 'string' || (typeof Request === 'function' && module_or_path instanceof Request) || (typeof URL === 'function' && module_or_path instanceof URL)) {
        module_or_path = fetch(module_or_path);
    }

    const { instance, module } = await __wbg_load(await module_or_path, imports);

    return __wbg_finalize_init(instance, module);
}

export { initSync, __wbg_init as default };
