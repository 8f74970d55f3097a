// A placeholder tokenizer for exported models, so that llama.cpp (which will not open a model
// without a vocabulary) can load a preset's weights: a SentencePiece-style ("llama") vocabulary
// of `vocab` tokens with no merges and no scores to speak of. Ids follow SentencePiece's layout:
// 0 <unk>, 1 <s> (BOS), 2 </s> (EOS), 3..258 the byte tokens <0x00>..<0xFF> (so any text
// tokenizes, byte by byte), and "<tN>" for every other id N. Phasebench never tokenizes text;
// an engine comparison feeds both engines the same token ids.
#pragma once

#include <cstdint>

#include "engine/gguf/gguf_writer.h"

namespace pb {

// Adds tokenizer.ggml.{model, tokens, scores, token_type, bos/eos/unknown_token_id,
// add_bos_token}. A vocabulary of fewer than 259 ids gets no byte tokens.
void add_placeholder_tokenizer(gguf::GgufWriter& writer, uint32_t vocab);

}  // namespace pb
