def train_step(model, optimizer, batch):
    loss = model(batch).float().pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss
