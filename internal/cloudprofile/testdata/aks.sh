#!/bin/sh
# Create AKS cluster with Windows support
az aks create \
  --resource-group myResourceGroup \
  --name myAKSCluster \
  --node-count 2 \
  --network-plugin azure \
  --windows-admin-username azureuser \
  --windows-admin-password 'SecurePassword123!'

# Add Windows node pool
az aks nodepool add \
  --resource-group myResourceGroup \
  --cluster-name myAKSCluster \
  --name winnp \
  --os-type Windows \
  --os-sku Windows2022 \
  --node-count 2 \
  --node-vm-size Standard_D4s_v3 \
  --labels kubernetes.io/os=windows
