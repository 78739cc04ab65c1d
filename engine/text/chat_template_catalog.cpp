// The published chat templates this engine renders, as data (the Jinja text as published; a
// default system turn is written @@SYSTEM@@ where a form lets fine-tunes choose it).
//  - LLaDA-8B-Instruct (GSAI-ML, MIT) and Meta Llama-3-Instruct: Llama-3 headers, `| trim`, BOS
//    on the first message; the second form adds the generation prompt only when asked.
//  - Qwen2.5-Instruct (Qwen, Apache-2.0), the same text Dream-v0-Instruct-7B (Dream-org, Apache-2.0)
//    publishes with its own system line: ChatML with a tools branch and a default system turn.
//  - Qwen2-Instruct's shorter ChatML with a default system turn, and plain ChatML with none.
//  - dlmscope-tiny: the embedded models' layout (tools/train/export.py writes this text).
#include "text/chat_template_catalog.h"

namespace dlm {

const std::vector<PublishedChatTemplate>& published_chat_templates() {
    static const std::vector<PublishedChatTemplate> catalogue = {
        {ChatTemplateKind::Llama3, "Llama-3 headers (LLaDA-Instruct / Llama-3-Instruct form)",
         R"TPL({% set loop_messages = messages %}{% for message in loop_messages %}{% set content = '<|start_header_id|>' + message['role'] + '<|end_header_id|>

'+ message['content'] | trim + '<|eot_id|>' %}{% if loop.index0 == 0 %}{% set content = bos_token + content %}{% endif %}{{ content }}{% endfor %}{{ '<|start_header_id|>assistant<|end_header_id|>

' }})TPL"},
        {ChatTemplateKind::Llama3, "Llama-3 headers (Llama-3-Instruct form)",
         R"TPL({% set loop_messages = messages %}{% for message in loop_messages %}{% set content = '<|start_header_id|>' + message['role'] + '<|end_header_id|>

'+ message['content'] | trim + '<|eot_id|>' %}{% if loop.index0 == 0 %}{% set content = bos_token + content %}{% endif %}{{ content }}{% endfor %}{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>

' }}{% endif %})TPL"},
        {ChatTemplateKind::ChatML, "ChatML (Qwen2.5 / Dream form)",
         R"TPL({%- if tools %}
    {{- '<|im_start|>system\n' }}
    {%- if messages[0]['role'] == 'system' %}
        {{- messages[0]['content'] }}
    {%- else %}
        {{- '@@SYSTEM@@' }}
    {%- endif %}
    {{- "\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>" }}
    {%- for tool in tools %}
        {{- "\n" }}
        {{- tool | tojson }}
    {%- endfor %}
    {{- "\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call><|im_end|>\n" }}
{%- else %}
    {%- if messages[0]['role'] == 'system' %}
        {{- '<|im_start|>system\n' + messages[0]['content'] + '<|im_end|>\n' }}
    {%- else %}
        {{- '<|im_start|>system\n@@SYSTEM@@<|im_end|>\n' }}
    {%- endif %}
{%- endif %}
{%- for message in messages %}
    {%- if (message.role == "user") or (message.role == "system" and not loop.first) or (message.role == "assistant" and not message.tool_calls) %}
        {{- '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>' + '\n' }}
    {%- elif message.role == "assistant" %}
        {{- '<|im_start|>' + message.role }}
        {%- if message.content %}
            {{- '\n' + message.content }}
        {%- endif %}
        {%- for tool_call in message.tool_calls %}
            {%- if tool_call.function is defined %}
                {%- set tool_call = tool_call.function %}
            {%- endif %}
            {{- '\n<tool_call>\n{"name": "' }}
            {{- tool_call.name }}
            {{- '", "arguments": ' }}
            {{- tool_call.arguments | tojson }}
            {{- '}\n</tool_call>' }}
        {%- endfor %}
        {{- '<|im_end|>\n' }}
    {%- elif message.role == "tool" %}
        {%- if (loop.index0 == 0) or (messages[loop.index0 - 1].role != "tool") %}
            {{- '<|im_start|>user' }}
        {%- endif %}
        {{- '\n<tool_response>\n' }}
        {{- message.content }}
        {{- '\n</tool_response>' }}
        {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}
            {{- '<|im_end|>\n' }}
        {%- endif %}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\n' }}
{%- endif %}
)TPL"},
        {ChatTemplateKind::ChatML, "ChatML (Qwen2 form)",
         R"TPL({% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}{{ '<|im_start|>system\n@@SYSTEM@@<|im_end|>\n' }}{% endif %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %})TPL"},
        {ChatTemplateKind::ChatML, "ChatML",
         R"TPL({% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %})TPL"},
        {ChatTemplateKind::DlmscopeTiny, "dlmscope-tiny",
         R"TPL({{ bos_token }}{% set ns = namespace(system='') %}{% for message in messages %}{% if message['role'] == 'system' %}{% set ns.system = ns.system + message['content'] + '\n' %}{% elif message['role'] == 'user' %}{{ '<|user|>\n' + ns.system + message['content'] + '<|eot|>' }}{% set ns.system = '' %}{% elif message['role'] == 'assistant' %}{{ '<|assistant|>\n' + message['content'] + '<|eot|>' }}{% endif %}{% endfor %}{% if ns.system %}{{ '<|user|>\n' + ns.system[:-1] + '<|eot|>' }}{% endif %}{% if add_generation_prompt %}{{ '<|assistant|>\n' }}{% endif %})TPL"},
    };
    return catalogue;
}

}  // namespace dlm
