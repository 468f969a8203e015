# embed.cmake - turn a file into a C array: cmake -DIN=file -DOUT=file.c -DSYM=name -P embed.cmake
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" n)
math(EXPR len "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n    "
       body "${body}")
get_filename_component(base "${IN}" NAME)
file(WRITE "${OUT}" "/* generated from ${base} by app/embed.cmake: do not edit */\n"
     "#include <stddef.h>\n"
     "const char ${SYM}_name[] = \"${base}\";\n"
     "const unsigned char ${SYM}[] = {\n    ${body}0x00};\n"
     "const size_t ${SYM}_len = ${len};\n")
