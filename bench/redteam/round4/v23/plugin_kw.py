BASE_KW = dict(zero_stage=2, gradient_accumulation_steps=2)
