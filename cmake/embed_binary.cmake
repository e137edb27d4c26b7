# Writes a C++ source that defines `SYMBOL` (an aligned byte array) and `SYMBOL_size` with the
# contents of the file `INPUT`. Usage: cmake -DINPUT=f -DOUTPUT=f.cpp -DSYMBOL=name -P embed_binary.cmake
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" hex_len)
math(EXPR size "${hex_len} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
file(WRITE "${OUTPUT}" "// Generated from ${INPUT} by cmake/embed_binary.cmake.\n#include <cstddef>\n"
     "alignas(64) extern const unsigned char ${SYMBOL}[] = {\n${bytes}\n};\n"
     "extern const size_t ${SYMBOL}_size = ${size};\n")
