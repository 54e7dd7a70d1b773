// Loads the QuickJS WebAssembly build once per runner process, on a WebAssembly memory with a
// fixed maximum. QuickJS's own heap limit does not count every allocation (typed-array and array
// storage grew a runner to 2.1 GiB under a 64 MiB limit when measured); a memory that cannot grow
// past its maximum makes every allocation beyond it fail inside the interpreter as "out of memory".
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSSyncVariant,
  type QuickJSWASMModule,
} from 'quickjs-emscripten-core';
import variant from '@jitl/quickjs-wasmfile-release-sync';

const PAGE = 64 * 1024;
/** The build's own initial memory; a supplied memory must start at least this large. */
const INITIAL_BYTES = 16 * 1024 * 1024;

// The package's types describe its CommonJS build; imported as ESM, its default export is the
// variant itself.
const base = variant as unknown as QuickJSSyncVariant;

export function loadQuickJS(maxMemoryBytes?: number): Promise<QuickJSWASMModule> {
  if (!maxMemoryBytes) return newQuickJSWASMModuleFromVariant(base);
  const maximum = Math.max(INITIAL_BYTES, maxMemoryBytes);
  const wasmMemory = new WebAssembly.Memory({
    initial: INITIAL_BYTES / PAGE,
    maximum: Math.ceil(maximum / PAGE),
  });
  return newQuickJSWASMModuleFromVariant(newVariant(base, { wasmMemory }));
}
