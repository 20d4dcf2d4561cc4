#ifndef MARBLES_CVALUEWITNESSES_H
#define MARBLES_CVALUEWITNESSES_H

// Value witnesses the Swift runtime keeps for every type, which Swift code cannot call itself.
//
// An enum's three: the case a value holds, and its payload laid bare in place and covered
// again. The recorder's writer describes an enum value with them (ValueDescription's enum
// plans) instead of reflecting it through `Mirror`, which looks the payload's type up by its
// mangled name for every value.
//
// Any type's copy of one value into uninitialised memory: how the recorder's send path, which
// is not specialised for the value's type, copies a value with references into its thread's
// ring (CapturedValue). Swift's own one-value copy there (`initialize(to: pointer.pointee)`)
// copies into a temporary of the type's size, made on the stack at every send, and moves it
// on: two witness calls and a frame of dynamic size where this is one call.
//
// The layout is the runtime's: a type's metadata is preceded by its value-witness table, whose
// eight functions (the third is `initializeWithCopy`) and four size fields (88 bytes on a
// 64-bit platform) an enum's table follows with `getEnumTag`, `destructiveProjectEnumData` and
// `destructiveInjectEnumTag`. They use the Swift calling convention, which `swiftcall` gives
// these pointers. Only enum metadata (kind 0x201) may be passed to the enum witnesses.

typedef void *(*marbles_copy_witness)(void *target, const void *source, const void *metadata) __attribute__((swiftcall));
typedef unsigned (*marbles_enum_tag_witness)(const void *value, const void *metadata) __attribute__((swiftcall));
typedef void (*marbles_enum_project_witness)(void *value, const void *metadata) __attribute__((swiftcall));
typedef void (*marbles_enum_inject_witness)(void *value, unsigned tag, const void *metadata) __attribute__((swiftcall));

static inline void *const *marbles_value_witnesses(const void *metadata) {
    return ((void *const *const *)metadata)[-1];
}

/// Initialises the uninitialised memory at `target` (of the type's size and alignment) with a
/// copy of the value at `source`, of the type whose metadata is `metadata`: what assigning the
/// value does (what it holds is retained). Any type's metadata may be passed.
static inline void marbles_initialize_with_copy(void *target, const void *source, const void *metadata) {
    ((marbles_copy_witness)marbles_value_witnesses(metadata)[2])(target, source, metadata);
}

/// The case `value` holds, numbered as the runtime numbers an enum's cases: the cases with a
/// payload first, in declaration order, then the others.
static inline unsigned marbles_enum_tag(const void *value, const void *metadata) {
    return ((marbles_enum_tag_witness)marbles_value_witnesses(metadata)[11])(value, metadata);
}

/// Leaves the payload of `value`'s case at `value` (the case's bits cleared).
static inline void marbles_enum_project(void *value, const void *metadata) {
    ((marbles_enum_project_witness)marbles_value_witnesses(metadata)[12])(value, metadata);
}

/// Makes the payload at `value` a value of the enum's case `tag` again.
static inline void marbles_enum_inject(void *value, unsigned tag, const void *metadata) {
    ((marbles_enum_inject_witness)marbles_value_witnesses(metadata)[13])(value, tag, metadata);
}

#endif
